"""KITMUS results as people see them (the task's report capability): the paper's variant x
entities table (:mod:`refbench.tasks.kitmus.present.tables`), its figure
(:mod:`refbench.tasks.kitmus.present.plot`) and the scorer's text for one file
(:mod:`refbench.tasks.kitmus.present.text`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.table import Table
from refbench.tasks.capabilities import Report
from refbench.tasks.kitmus.present.plot import plot_entities
from refbench.tasks.kitmus.present.tables import (
    check_result,
    kitmus_cells,
    report_tables,
    result_split,
)


class KitmusReport(Report):
    """The paper's variant x entities table and figure; the scorer's text for one file."""

    def tables(self, results: Sequence[dict[str, Any]], *, metric: str | None = None,
               ci: bool = False) -> list[Table] | None:
        return report_tables(results, metric=metric, ci=ci)

    def plot(self, results: Sequence[dict[str, Any]], out: Path, *,
             metric: str | None = None) -> bool:
        km_metric = metric or "pronoun_accuracy"
        cells, chance = kitmus_cells(results, km_metric)
        plot_entities(cells, chance, out, metric=km_metric, split=result_split(results))
        return True

    def text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        from refbench.tasks.kitmus.present.text import kitmus_text

        return None if result.get("mode") == "suite" else kitmus_text(result)

    def check_result(self, data: dict[str, Any], path: str | Path) -> None:
        check_result(data, path)
