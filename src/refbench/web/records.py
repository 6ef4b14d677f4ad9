"""Index records: what the app keeps of each instance, as each task builds them
(:meth:`refbench.tasks.base.Task.web_records`; the record types live in
:mod:`refbench.tasks.index_records`, below the tasks, so a task never imports the web layer).

A record has the instance id, the gold answer, the task's facet values, a one-line preview,
the text searched by the full-text index, and a *payload*: everything the instance page draws,
as plain JSON. The pages are rendered from payloads alone, so opening an instance never
re-reads a data file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from refbench.tasks.base import find_task, get_task
from refbench.tasks.index_records import Problem, Record

__all__ = ["Problem", "Record", "facet_labels", "facet_names", "file_records"]


def facet_names(task: str) -> list[str]:
    """The facets a task's datasets are filtered by, in display order."""
    found = find_task(task)
    return [name for name, _ in found.facets] if found else []


def facet_labels(task: str) -> dict[str, str]:
    found = find_task(task)
    return dict(found.facets) if found else {}


def file_records(kind: str, task: str, path: Path) -> Iterator[Record | Problem]:
    """The records of one data file of a dataset of ``kind`` (see
    :meth:`refbench.tasks.base.Task.dataset_kind`). A task may read instance by instance, so
    one instance its reader rejects becomes a :class:`Problem` instead of hiding the file."""
    return get_task(task).web_records(path, kind)
