"""Read any supported file into choice instances; the task is inferred from the content by
asking every registered task's :meth:`~refbench.tasks.base.Task.sniff`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.inputs import check_input_file
from refbench.core.invalid import InvalidInstances
from refbench.core.registry import PluginError
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, Task
from refbench.tasks.lookup import all_tasks, warn_once

__all__ = ["infer_task", "read_choices"]


def infer_task(path: str | Path, *, kinds: Sequence[str] | None = ("choice",)) -> Task:
    """The task whose format the file is in (tasks of ``kinds`` only; None: every task),
    asking the sniffers in ``sniff_order``; UsageError when none recognises it."""
    p = check_input_file(path, what="data file")
    head = FileHead(p)
    tasks = [t for t in all_tasks() if kinds is None or t.kind in kinds]
    for task in sorted(tasks, key=lambda t: t.sniff_order):  # stable: registry order on ties
        try:
            if task.sniff(head):
                return task
        except PluginError as exc:  # a plugin's sniffer that fails: it alone is left out
            warn_once(exc.message)
    other = _other_kind(head, [t for t in all_tasks() if t not in tasks])
    if other is not None:
        own = f"; its own commands run and score it (refbench {other.name} --help)" if (
            other.commands is not None) else ""
        raise UsageError(f"{p}: a {other.name} file ({other.kind}, not choice instances): no "
                         f"choice model runs on it{own}")
    raise UsageError(f"{p}: cannot tell the task from the file; pass --task "
                     f"({', '.join(t.name for t in tasks)})")


def _other_kind(head: FileHead, others: Sequence[Task]) -> Task | None:
    """The task of another kind than asked (TNE's documents) that recognises the file."""
    for task in sorted(others, key=lambda t: t.sniff_order):
        try:
            if task.sniff(head):
                return task
        except PluginError:
            continue
    return None


def read_choices(path: str | Path, *, task: Task | None = None,
                 options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
    """Choice instances of any supported file. ``on_invalid`` (``--skip-invalid``): skip and
    record malformed instances instead of stopping at the first."""
    found = task or infer_task(path)
    if found.documents is not None:
        choice = ", ".join(t.name for t in all_tasks() if t.documents is None)
        raise UsageError(f"task {found.name!r} has documents, not choice instances; choose "
                         f"from {choice}")
    check_input_file(path, what="data file")
    yield from found.read_choices(Path(path), options=dict(options or {}),
                                  on_invalid=on_invalid)
