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


def run_data(name_or_path: str, split: str | None, task: str | Task | None) -> Path:
    """What ``refbench.run``'s data and ``split`` stand for: a release name with one of its
    splits (``NAME, split="dev"``) is that split's file; a data file must hold ``split``
    when one is given (:func:`refbench.tasks.scope.checked_split`); a folder run whole takes
    ``split`` as the split of each of its files."""
    from refbench.releases.manifest import find_release
    from refbench.tasks.scope import checked_split

    release = None if Path(name_or_path).exists() or ":" in name_or_path \
        else find_release(name_or_path)
    if split is not None and release is not None and split in release.splits:
        return data_path(name_or_path, split=split)
    path = data_path(name_or_path)
    if split is not None and not path.is_dir():
        checked_split(task_of(task, path), path, split)
    return path


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

    def _repr_html_(self, rows: int = 5) -> str:
        """A notebook's view: the task, the counts (instances, with gold, candidates per
        instance) and the first rows; the data's text is escaped."""
        from collections import Counter
        from html import escape

        from refbench.public.display import html_table, short

        sizes = Counter(len(i.candidates) for i in self.instances)
        gold = sum(i.gold is not None for i in self.instances)
        caption = (f"<b>{escape(self.task.name)}</b>: {len(self)} instances ({gold} with "
                   f"gold; candidates per instance: "
                   f"{escape(', '.join(f'{k}: {n}' for k, n in sorted(sizes.items())))}) "
                   f"from {escape(str(self.path))}")
        shown = [(i.id, short(i.context), i.expression,
                  " | ".join(c.text for c in i.candidates), i.gold)
                 for i in self.instances[:rows]]
        more = f"<p>… {len(self) - rows} more</p>" if len(self) > rows else ""
        return html_table(("id", "context", "expression", "candidates", "gold"), shown,
                          caption=caption) + more

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
    from refbench.public.checks import load_args
    from refbench.tasks.choices import read_choices

    load_args(name_or_path, split, task)
    path = data_path(name_or_path, split=split)
    if path.is_dir():
        raise RefbenchError("a folder: load one of its data files (refbench.run runs a "
                            "folder whole)", path=path)
    the_task = task_of(task, path)
    return Dataset(path, the_task, tuple(read_choices(path, task=the_task)))
