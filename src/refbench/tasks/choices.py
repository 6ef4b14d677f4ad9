"""Read any supported file into choice instances; the task is inferred from the content by
asking every registered task's :meth:`~refbench.tasks.base.Task.sniff`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.inputs import check_input_file
from refbench.core.invalid import InvalidInstances
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, all_tasks, get_task, split_from_name, task_names

__all__ = ["choice_tasks", "infer_split", "infer_task", "read_choices"]


def choice_tasks() -> list[str]:
    """The registered tasks read into choice instances (every choice model runs on them)."""
    return task_names("choice")


def infer_task(path: str | Path, *, kinds: Sequence[str] | None = ("choice",)) -> str:
    """The task whose format the file is in (tasks of ``kinds`` only; None: every task),
    asking the sniffers in ``sniff_order``; UsageError when none recognises it."""
    p = check_input_file(path, what="data file")
    head = FileHead(p)
    tasks = [t for t in all_tasks() if kinds is None or t.kind in kinds]
    for task in sorted(tasks, key=lambda t: t.sniff_order):  # stable: registry order on ties
        if task.sniff(head):
            return task.name
    raise UsageError(f"{p}: cannot tell the task from the file; pass --task "
                     f"({', '.join(t.name for t in tasks)})")


def infer_split(path: str | Path, task: str | None = None) -> str | None:
    """The split a data file holds (``task``'s :meth:`~refbench.tasks.base.Task.infer_split`;
    without a task, from the file's name or folder: ``gap-test.tsv``, ``books/test.json.gz``,
    ``winogrande-dev.jsonl``; WSC273 is a test set); None when neither says."""
    if task is None:
        return split_from_name(path)
    return get_task(task).infer_split(Path(path))


def read_choices(path: str | Path, *, task: str | None = None,
                 options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
    """Choice instances of any supported file. ``on_invalid`` (``--skip-invalid``): skip and
    record malformed instances instead of stopping at the first."""
    name = task or infer_task(path)
    choice = choice_tasks()
    if name not in choice:
        raise UsageError(f"unknown task {name!r}; choose from {', '.join(choice)}")
    check_input_file(path, what="data file")
    yield from get_task(name).read_choices(Path(path), options=dict(options or {}),
                                           on_invalid=on_invalid)
