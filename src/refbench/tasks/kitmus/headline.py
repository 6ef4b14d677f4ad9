"""KITMUS' headline (Arodi et al., 2023, the paper's figures): pronoun accuracy per variant x
number of entities, one cell per subtask file a system was run on, and the mean over the cells
every system of a table has (a mean over different cells would compare different tests).

Each cell is a proportion of its instances (Wilson); the mean over cells of equal n is the
proportion pooled over them, so its interval is Wilson's of the pooled count."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from refbench.core.result import Result
from refbench.metrics.intervals import exact_count, wilson
from refbench.tasks.headline import Headline, HeadlineFigure, figure_of

CELL = Headline("pronoun_accuracy", "Pronoun accuracy", chance=True)
MEAN = "mean"


def cell_name(r: Result) -> str:
    """``background-pretrain/2``: the subtask a result is of (``2`` for a file that records
    no variant)."""
    variant, k = r.details.get("variant"), r.details.get("n_entities") or "?"
    return f"{variant}/{k}" if variant else str(k)


def kitmus_figures(results: Sequence[Result]) -> list[HeadlineFigure]:
    out = []
    for r in sorted(results, key=cell_name):
        name = cell_name(r)
        f = figure_of(CELL, r)
        out.append(HeadlineFigure(name, f"{name} ents", f.value, f.interval, f.method, f.n,
                                  f.of, f.partial))
    return out


def kitmus_mean(by_system: Mapping[str, Sequence[HeadlineFigure]]
                ) -> dict[str, HeadlineFigure]:
    """Each system's mean over the complete cells every system has."""
    common: set[str] | None = None
    for figures in by_system.values():
        mine = {f.metric for f in figures if not f.partial and f.value is not None}
        common = mine if common is None else common & mine
    if not common:
        return {}
    out = {}
    label = f"Mean ({len(common)} cell{'s' if len(common) != 1 else ''})"
    for system, figures in by_system.items():
        cells = [f for f in figures if f.metric in common]
        values = [f.value for f in cells if f.value is not None]
        counts = [exact_count(f.value, f.n) for f in cells if f.value is not None]
        n = sum(f.n for f in cells)
        same_n = len({f.n for f in cells}) == 1
        interval = wilson(sum(c for c in counts if c is not None), n) \
            if same_n and None not in counts else None
        out[system] = HeadlineFigure(MEAN, label, sum(values) / len(values), interval,
                                     "wilson" if interval else "none", n, n)
    return out
