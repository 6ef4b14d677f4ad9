"""Index records: what the app keeps of each instance, as each task builds them (its web
capability's :meth:`~refbench.tasks.capabilities.WebView.records`; the record types live in
:mod:`refbench.tasks.index_records`, below the tasks, so a task never imports the web layer).

A record has the instance id, the gold answer, the task's facet values, a one-line preview,
the text searched by the full-text index, and a *payload*: everything the instance page draws,
as plain JSON. The pages are rendered from payloads alone, so opening an instance never
re-reads a data file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from refbench.tasks.base import Task
from refbench.tasks.capabilities import PLAIN, WebView
from refbench.tasks.index_records import Problem, Record

__all__ = ["Problem", "Record", "facet_labels", "facet_names", "file_records", "view_of"]


def view_of(task: Task) -> WebView:
    """The task's web view (the plain choice view when it brings none)."""
    return task.web or PLAIN


def facet_names(view: WebView) -> list[str]:
    """The facets a task's datasets are filtered by, in display order."""
    return [name for name, _ in view.facets]


def facet_labels(view: WebView) -> dict[str, str]:
    return dict(view.facets)


def file_records(kind: str, task: Task, path: Path) -> Iterator[Record | Problem]:
    """The records of one data file of a dataset of ``kind`` (see
    :meth:`~refbench.tasks.capabilities.WebView.dataset_kind`). A task may read instance by
    instance, so one instance its reader rejects becomes a :class:`Problem` instead of hiding
    the file."""
    return view_of(task).records(task, path, kind)
