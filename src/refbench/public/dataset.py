"""``refbench.load``: a benchmark's instances from a release name or a path, as the command
line reads them (``--data NAME[:SPLIT]``, ``--task``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

from refbench.core.errors import RefbenchError
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import Task


def pandas() -> Any:
    """pandas, imported when a table is asked for (``to_pandas``)."""
    import importlib

    return importlib.import_module("pandas")


def data_path(name_or_path: str | Path, *, split: str | None = None) -> Path:
    """The file or folder a release name (``wsc273``, ``gap:test``; ``split`` adds
    ``:SPLIT``) or a path stands for: what ``--data`` makes of it."""
    from refbench.releases.cache import resolve_reference

    if isinstance(name_or_path, Path) or Path(name_or_path).exists():
        path = Path(name_or_path)
        if split is not None:
            raise RefbenchError(f"split={split!r} is for a release name; {path} is a path")
        return path
    reference = name_or_path if split is None else f"{name_or_path}:{split}"
    resolved = resolve_reference(reference)
    if resolved is None:
        raise RefbenchError("no such file, and no release of that name (refbench data list)",
                            path=reference)
    return resolved


def task_of(task: str | Task | None, path: Path) -> Task:
    """``task`` (a name or a task), else the task inferred from the data."""
    from refbench.tasks.choices import infer_task
    from refbench.tasks.lookup import get_task

    if isinstance(task, Task):
        return task
    return get_task(task) if task else infer_task(path)


@dataclass(frozen=True)
class Dataset:
    """A benchmark's instances: ``len()``, iteration and indexing over typed
    :class:`~refbench.api.ChoiceInstance`, ``.task`` (its :class:`~refbench.api.Task`),
    ``.path`` and ``.to_pandas()`` (one row per instance)."""

    path: Path
    task: Task
    instances: tuple[ChoiceInstance, ...]

    def __len__(self) -> int:
        return len(self.instances)

    def __iter__(self) -> Iterator[ChoiceInstance]:
        return iter(self.instances)

    @overload
    def __getitem__(self, k: int) -> ChoiceInstance: ...
    @overload
    def __getitem__(self, k: slice) -> Sequence[ChoiceInstance]: ...

    def __getitem__(self, k: int | slice) -> ChoiceInstance | Sequence[ChoiceInstance]:
        return self.instances[k]

    def __repr__(self) -> str:
        return f"<Dataset {self.task.name}: {len(self)} instances from {self.path}>"

    def to_pandas(self) -> Any:
        """One row per instance: ``id``, ``context``, ``expression``, ``candidates`` (their
        texts), ``gold`` (an index, None without gold) and the task's slice keys."""
        return pandas().DataFrame([{"id": i.id, "context": i.context, "expression": i.expression,
                              "candidates": [c.text for c in i.candidates], "gold": i.gold,
                              **self.task.slices(i)} for i in self.instances])


def load(name_or_path: str | Path, *, split: str | None = None,
         task: str | None = None) -> Dataset:
    """A benchmark's instances: a release name (``"wsc273"``, ``"gap:test"``, with ``split``
    or without) or a data file (``task`` when it cannot be told from the file). A folder run
    whole (a KITMUS suite, a WinoBias release) is read file by file: load one of its files."""
    from refbench.tasks.choices import read_choices

    path = data_path(name_or_path, split=split)
    if path.is_dir():
        raise RefbenchError("a folder: load one of its data files (refbench.run runs a "
                            "folder whole)", path=path)
    the_task = task_of(task, path)
    return Dataset(path, the_task, tuple(read_choices(path, task=the_task)))
