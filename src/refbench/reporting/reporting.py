"""From loaded results to the tables and plot of ``refbench report`` (the web app calls the same
functions): each task's results in the layout the task asks for
(their report capability's :meth:`~refbench.tasks.capabilities.Report.tables`; KITMUS: the paper's
variant x entities table), everything else in the shared per-data-set table."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.table import Table
from refbench.reporting.render import render_tables
from refbench.reporting.tables import generic_tables
from refbench.tasks.base import Task
from refbench.tasks.lookup import find_task


def _own_layouts(results: Sequence[dict[str, Any]]
                 ) -> tuple[list[tuple[Task, list[dict[str, Any]]]], list[dict[str, Any]]]:
    """(task, its results) for the tasks with a layout of their own, in the order the tasks
    first appear, and the remaining results."""
    own: dict[str, tuple[Task, list[dict[str, Any]]]] = {}
    shared = []
    for r in results:
        name = str(r.get("task"))
        task = find_task(name)
        if task is not None and task.report is not None:
            own.setdefault(name, (task, []))[1].append(r)
        else:
            shared.append(r)
    return list(own.values()), shared


def tables_for(results: Sequence[dict[str, Any]], *, metric: str | None = None,
               ci: bool = False) -> list[Table]:
    own, others = _own_layouts(results)
    tables: list[Table] = []
    for task, rs in own:
        assert task.report is not None
        mine = task.report.tables(rs, metric=metric, ci=ci)
        if mine is None:  # the task's report keeps the shared table
            others += rs
        else:
            tables += mine
    if others:
        tables += generic_tables(others, metric=metric, ci=ci)
    return tables


def build_tables(results: Sequence[dict[str, Any]], *, fmt: str = "md",
                 metric: str | None = None, ci: bool = False, standalone: bool = False) -> str:
    return render_tables(tables_for(results, metric=metric, ci=ci), fmt, standalone=standalone)


def draw_plot(results: Sequence[dict[str, Any]], out: str | Path, *,
              metric: str | None = None) -> None:
    """A task's own figure when every result is of that one task (KITMUS: accuracy against
    entities per variant; WinoBias: Pro / Anti / Diff per type), else grouped bars of every
    result: a figure of one task never leaves the other tasks' results out."""
    from refbench.reporting.plots import plot_results

    names = set(str(r.get("task")) for r in results)
    if len(names) == 1:
        task = find_task(names.pop())
        if task is not None and task.report is not None \
                and task.report.plot(list(results), Path(out), metric=metric):
            return
    plot_results(results, out, metric=metric)
