"""The cross-benchmark table of a several-benchmark run (``refbench run --data A --data B
--out DIR``; ``DIR/summary.json``, :mod:`refbench.runs.multi`): one row per benchmark with its
headline figure and 95% interval, n of N, and the chance level. ``refbench run`` prints it and
``refbench report DIR`` renders it (Markdown, LaTeX, HTML, CSV)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from refbench.core.table import Table, metric_label
from refbench.reporting.render import render_tables

if TYPE_CHECKING:
    from refbench.runs.multi import Summary

HEADER = ["Benchmark", "Task", "Figure", "Value", "95% CI", "n of N", "Chance"]


def _number(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, int | float) else "-"


def summary_table(summary: Summary) -> Table:
    """The summary as a :class:`~refbench.core.table.Table` (and its tidy records)."""
    rows: list[list[str]] = []
    tidy: list[dict[str, Any]] = []
    for r in summary.get("rows", []):
        ci = r.get("ci95")
        interval = f"[{ci[0]:.3f}, {ci[1]:.3f}]" if isinstance(ci, list) and len(ci) == 2 \
            and all(isinstance(x, int | float) for x in ci) else "-"
        n, of = r.get("n"), r.get("of")
        rows.append([str(r.get("benchmark")), str(r.get("task")),
                     metric_label(str(r.get("metric"))), _number(r.get("value")), interval,
                     f"{n} of {'?' if of is None else of}", _number(r.get("chance"))])
        tidy.append({k: r.get(k) for k in ("benchmark", "task", "split", "metric", "value",
                                           "n", "of", "chance")}
                    | {"system": summary.get("system")})
    notes = [f"skipped {s['benchmark']}: {s['reason']}" for s in summary.get("skipped", [])]
    limit = summary.get("limit")
    if limit:
        notes.insert(0, f"--limit {limit}: the first {limit} instances of each data file")
    return Table(title=f"{summary.get('system')} on {len(rows)} benchmark(s)", header=HEADER,
                 rows=rows, notes=notes, tidy=tidy, label="tab:refbench-summary")


def summary_text(summary: Summary, fmt: str = "md", *, standalone: bool = False) -> str:
    """The summary rendered as ``fmt`` (``md``, ``latex``, ``html``, ``csv``)."""
    return render_tables([summary_table(summary)], fmt, standalone=standalone)


def summary_report(paths: tuple[Path, ...], fmt: str, *, standalone: bool = False) -> str | None:
    """``refbench report DIR`` for the folder of a several-benchmark run: its summary table;
    None when ``paths`` is not one such folder."""
    from refbench.runs.multi import read_summary

    if len(paths) != 1 or not paths[0].is_dir():
        return None
    summary = read_summary(paths[0])
    return None if summary is None else summary_text(summary, fmt, standalone=standalone)
