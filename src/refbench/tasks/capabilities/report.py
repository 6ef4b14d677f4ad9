"""The *report* capability: a task's own tables, figures and printed text.

Without it, ``report`` draws the shared per-data-set table (the task's ``headline_metrics``)
and bars, and ``evaluate`` prints the shared choice text.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.table import Table


class Report:
    """``table_notes``: notes under the shared table; ``result_figure``: what ``evaluate
    --plot`` draws of one result (empty: the task has no such figure)."""

    table_notes: tuple[str, ...] = ()
    result_figure: str = ""

    def tables(self, results: Sequence[dict[str, Any]], *, metric: str | None = None,
               ci: bool = False) -> list[Table] | None:
        """Tables of the task's results in their own layout (None: the shared table)."""
        return None

    def plot(self, results: Sequence[dict[str, Any]], out: Path, *,
             metric: str | None = None) -> bool:
        """Draw the task's own figure of ``results`` to ``out``; False: the shared bars."""
        return False

    def draws_figure(self) -> bool:
        """Whether the task has a figure of its own (it overrides :meth:`plot`), known
        without drawing it: the web app lists the figure's chart only then."""
        return type(self).plot is not Report.plot

    def plot_result(self, result: dict[str, Any], out: Path, *, title: str) -> None:
        """Draw ``result_figure`` of one evaluation result to ``out``."""
        raise NotImplementedError

    def text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        """What ``evaluate`` and ``run`` print for one result (None: the shared text)."""
        return None

    def check_result(self, data: dict[str, Any], path: str | Path) -> None:
        """Check, once, the fields :meth:`tables` reads from a loaded result file."""
