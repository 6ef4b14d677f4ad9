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

from collections.abc import Sequence
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


def checked_option(one: dict[str, Any], tasks: Sequence[Any], *, scorer: bool = False,
                   where: str = "--data") -> dict[str, Any]:
    """One reader option (``{key: value}``) typed and checked against the tasks of the data:
    one task's own options; several (``run --data A --data B``): the first task that declares
    the key, an unknown key naming the options of them all (``the tasks of WHERE (...)``)."""
    from refbench.core.options import key_of, parse_options

    if len(tasks) == 1:
        return dict(tasks[0].check_options(one, scorer=scorer))
    key = key_of(next(iter(one)))
    for task in tasks:
        if any(key in o.names() for o in task.options(scorer=scorer)):
            return dict(task.check_options(one, scorer=scorer))
    names = ", ".join(t.name for t in tasks)
    every = [o for t in tasks for o in t.options(scorer=scorer)]
    return parse_options(f"the tasks of {where} ({names})", every, one)


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
