"""A table as rendered cell strings plus its figures as tidy records.

Below ``tasks/`` so that a task with its own table layout (KITMUS: variants x entities) builds
its tables itself; :mod:`refbench.report.render` turns them into Markdown, LaTeX, HTML or CSV.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    groups: list[tuple[str, int]] = field(default_factory=list)  # spans over header columns
    rule_before: set[int] = field(default_factory=set)  # row indices after a rule
    notes: list[str] = field(default_factory=list)
    tidy: list[dict[str, Any]] = field(default_factory=list)
    label: str = "tab:refbench"


def metric_label(metric: str) -> str:
    """A metric key as a column label (``labeled_f1`` -> ``Labeled F1``)."""
    return metric.replace("_", " ").capitalize().replace("f1", "F1").replace("Iprep", "IPrep") \
        .replace("Uprep", "UPrep")


def interval_of(ci95: Any, metric: str) -> tuple[float, float] | None:
    """The ``[low, high]`` interval of ``metric`` in a result's ``ci95`` (None if absent or NaN)."""
    if isinstance(ci95, dict) and isinstance(ci95.get(metric), list | tuple):
        lo, hi = ci95[metric]
        if lo == lo and hi == hi:  # not NaN
            return float(lo), float(hi)
    return None
