"""Finding tasks: by name (with "did you mean" and optional version, ``kitmus.v1``), all of them,
those that have a capability, or the one that takes a folder whole (:func:`folder_task`).
Layers look a task up once, where a name enters (a command line option, a result file) and pass
the :class:`~refbench.tasks.base.Task` on from there.

A plugin task that cannot be loaded is left out of :func:`all_tasks` with one warning line
(each once per process), so one broken distribution never stops another command; naming it
gives its error (:class:`refbench.core.registry.PluginError`, exit code 1). A plugin task's
own methods, and those of its capabilities, are called through
:mod:`refbench.core.plugin_guard`: whatever they raise is one line naming the plugin.
"""

from __future__ import annotations

import sys
from pathlib import Path

from refbench.core.errors import RefbenchError
from refbench.core.registry import TASKS, Entry, PluginError
from refbench.tasks.base import CAPABILITIES, Task

_WARNED: set[str] = set()


def get_task(name: str) -> Task:
    """The registered task ``name`` (or an alias, or ``name.vN``)."""
    entry = TASKS.get(name)
    task = TASKS.load(name)
    if not isinstance(task, Task):
        raise PluginError(entry.broken(f"it is a {type(task).__name__}, not a "
                                       "refbench.api.Task"))
    if task.name != entry.name:
        raise PluginError(entry.broken(f"its task is named {task.name!r}"))
    from refbench.core.plugin_guard import guard

    return guard(task, entry, CAPABILITIES)  # type: ignore[no-any-return]


def find_task(name: str) -> Task | None:
    """The registered task ``name``; None when there is none (a result file may name a task
    this installation lacks) or when its plugin cannot be loaded (warned once)."""
    try:
        TASKS.canonical(name)
    except RefbenchError:
        return None
    try:
        return get_task(name)
    except PluginError as exc:
        warn_once(exc.message)
        return None


def all_tasks() -> list[Task]:
    """Every registered task that can be loaded, in registry order (refbench's, then the
    plugins' by name)."""
    out = []
    for entry in TASKS.entries():
        found = _load(entry)
        if found is not None:
            out.append(found)
    for entry in TASKS.shadowed:
        warn_once(entry.broken(f"refbench already has a task named {entry.name!r}"))
    return out


def tasks_with(capability: str) -> list[Task]:
    """The tasks that have ``capability`` (an attribute of :class:`Task`: ``folder``,
    ``documents``, ``web``, ``report``, ``export``, ``commands``, ``studies``, ``demo``,
    ``coref``, ``listings``, ``training``)."""
    if capability not in CAPABILITIES:
        raise ValueError(f"no capability {capability!r}")
    return [t for t in all_tasks() if getattr(t, capability) is not None]


def folder_task(path: Path) -> Task | None:
    """The task that takes the folder ``path`` whole as one dataset (a KITMUS suite, a
    Winogender or WinoBias release folder): the first registered task whose folder capability
    recognises it; None for a file, or a folder no task takes. The runner, the lm-eval export
    and import, and the web app all ask here, so they cannot disagree about a folder."""
    if not path.is_dir():
        return None
    return next((t for t in tasks_with("folder")
                 if t.folder is not None and t.folder.is_folder(path)), None)


def folder_task_of(path: Path, task: Task | None = None) -> Task:
    """``task`` when one is named (it must run on folders), else :func:`folder_task`; an error
    naming ``path`` when neither gives a task that runs on it whole."""
    if task is not None:
        if task.folder is None:
            raise RefbenchError(f"task {task.name} runs on data files, not folders; give a "
                                "data file", path=path)
        return task
    found = folder_task(path)
    if found is None:
        raise RefbenchError("not a folder of data that refbench runs on whole (refbench ls "
                            "tasks names the tasks that take a folder); give a data file",
                            path=path)
    return found


def task_names(kind: str | None = None) -> list[str]:
    """Registered task names (of one ``kind``: "choice" or "documents")."""
    return [t.name for t in all_tasks() if kind is None or t.kind == kind]


def _load(entry: Entry) -> Task | None:
    try:
        return get_task(entry.name)
    except PluginError as exc:
        warn_once(exc.message)
        return None


def warn_once(line: str) -> None:
    """One warning line on stderr, once per process."""
    if line not in _WARNED:
        _WARNED.add(line)
        print(f"warning: {line}", file=sys.stderr)
