"""From loaded results to the tables and plot of ``refbench report`` (the web app calls the same
functions): KITMUS results become the paper's variant x entities table, everything else the
per-data-set table."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.report.render import Table, render_tables
from refbench.report.tables import KITMUS_METRICS, generic_tables, kitmus_cells, kitmus_table


def _split(results: Sequence[dict[str, Any]]) -> str | None:
    splits = {r.get("split") for r in results if r.get("task") == "kitmus"}
    return splits.pop() if len(splits) == 1 else None


def tables_for(results: Sequence[dict[str, Any]], *, metric: str | None = None,
               ci: bool = False) -> list[Table]:
    kitmus = [r for r in results if r.get("task") == "kitmus"]
    others = [r for r in results if r.get("task") != "kitmus"]
    tables = []
    if kitmus:
        km_metric = metric or "pronoun_accuracy"
        cells, chance = kitmus_cells(kitmus, km_metric)
        table = kitmus_table(cells, chance, metric=km_metric, split=_split(kitmus), ci=ci)
        if metric is None:  # the tidy records carry every metric the results have
            extra = []
            for other in KITMUS_METRICS[1:]:
                try:
                    more, _ = kitmus_cells(kitmus, other)
                except RefbenchError:  # not in every result (e.g. no decisions)
                    continue
                extra += [t for t in kitmus_table(more, chance, metric=other,
                                                  split=_split(kitmus)).tidy
                          if t["kind"] == "system"]
            first = [t for t in table.tidy if t["kind"] == "system"]
            table.tidy = first + extra + [t for t in table.tidy if t["kind"] != "system"]
        tables.append(table)
    if others:
        tables += generic_tables(others, metric=metric, ci=ci)
    return tables


def build_tables(results: Sequence[dict[str, Any]], *, fmt: str = "md",
                 metric: str | None = None, ci: bool = False, standalone: bool = False) -> str:
    return render_tables(tables_for(results, metric=metric, ci=ci), fmt, standalone=standalone)


def draw_plot(results: Sequence[dict[str, Any]], out: str | Path, *,
              metric: str | None = None) -> None:
    """KITMUS results: accuracy against entities per variant; otherwise grouped bars."""
    from refbench.report.plots import plot_entities, plot_results

    kitmus = [r for r in results if r.get("task") == "kitmus"]
    if kitmus:
        km_metric = metric or "pronoun_accuracy"
        cells, chance = kitmus_cells(kitmus, km_metric)
        plot_entities(cells, chance, out, metric=km_metric, split=_split(kitmus))
    else:
        plot_results(results, out, metric=metric)
