"""A table as rendered cell strings plus its figures as tidy records.

Below ``tasks/`` so that a task with its own table layout (KITMUS: variants x entities) builds
its tables itself; :mod:`refbench.reporting.render` turns them into Markdown, LaTeX, HTML or CSV.
"""

from __future__ import annotations

import math
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
    """The ``[low, high]`` interval of ``metric`` in a result's ``ci95``; None if absent or not
    two finite numbers (an undefined interval is written ``[null, null]``, or NaN by old runs)."""
    got = ci95.get(metric) if isinstance(ci95, dict) else None
    if isinstance(got, list | tuple) and len(got) == 2 \
            and all(isinstance(x, int | float) and not isinstance(x, bool)
                    and math.isfinite(x) for x in got):
        return float(got[0]), float(got[1])
    return None
