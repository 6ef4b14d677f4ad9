"""TNE's printed results (labeled and unlabeled P/R/F1, IPrep/UPrep-Acc, breakdowns) and the
preposition confusion heat-map ``evaluate --plot`` draws."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from refbench.tasks.capabilities import Report


class TneReport(Report):
    table_notes = ("TNE n: documents.",)
    result_figure = "confusion heat-map of prepositions"

    def text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        from refbench.tasks.tne.present.text import tne_text

        return tne_text(result)

    def plot_result(self, result: dict[str, Any], out: Path, *, title: str) -> None:
        from refbench.tasks.tne.present.plot import plot_tne_confusion

        plot_tne_confusion(result, out, title=f"TNE preposition confusion: {title} "
                           "(rows sum to 1)")
