"""What a run's options and split apply to: the scope rules written once, for the command line
and the Python API alike.

- A task's reader option (``--task-arg KEY=VALUE``) belongs to the task that declares it: with
  several ``--data``, each run keeps only its own task's keys (:func:`own_options`), so
  AltEntities' ``input_type`` is never read by, nor recorded in, a WSC273 run.
- ``split=`` names a split of a release (``refbench.run("gap", split="dev")``: ``gap:dev``) or
  of a folder run whole; given with a data *file*, it must be the file's own split
  (:func:`checked_split`), never silently ignored while the result is labelled otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError


def own_options(task: Any, options: dict[str, Any]) -> dict[str, Any]:
    """The reader options of ``options`` that ``task`` declares (the others belong to other
    tasks of a several-data run)."""
    if not options:
        return {}
    names = {n for o in task.options() for n in o.names()}
    return {k: v for k, v in options.items() if k in names}


def checked_split(task: Any, path: Path, split: str | None) -> None:
    """Refuse ``split`` given with a data file that holds another split (or whose split cannot
    be told): the file decides what it is, and the result is labelled by it."""
    if split is None or path.is_dir():
        return
    found = task.infer_split(path)
    if found != split:
        held = f"holds the {found!r} split" if found else "has no split its task can tell"
        raise UsageError(f"split {split!r}: {path} is a data file, which {held}; name the "
                         f"release's split (gap:dev, or the name gap with split dev) or give "
                         f"the {split} file itself")
