"""GAP's metric, listed by ``refbench ls metrics`` (the task's listings capability)."""

from __future__ import annotations

from refbench.core.registry import Entry, Registry

METRICS = Registry(
    "metric",
    [
        Entry("gap.f1", "refbench.tasks.gap.score:score_gap",
              "GAP P/R/F1 overall, masculine, feminine; bias F/M"),
    ],
)
