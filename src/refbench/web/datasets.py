"""What the app can show: every data file or suite folder it was given, told apart by content.

A *dataset* is one browsable collection of instances: a KITMUS suite folder (every subtask and
split, refbench's native JSONL or else the official full-text CoNLL), or one data file of any
task refbench reads (KITMUS, KnowRef JSON/TSV, GAP, Winograd, AltEntities, TNE). A folder that is
not a suite is walked, and every readable data file in it becomes a dataset; files that are not
data (resources, system outputs) are listed as skipped with the reason, never fatal.

Dataset keys say which dataset they are and are stable (the task, the folder and the file's name,
plus a hash of the resolved path), so URLs survive a restart of the server.

A folder is walked inside itself only: a symbolic link that resolves outside the folder given
is not followed (one note lists such links by their own names, never their targets, which the
home page would otherwise show), and no folder is walked twice, so a link loop costs one visit.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from refbench.core.errors import RefbenchError
from refbench.core.identity import data_identity
from refbench.tasks.base import Task
from refbench.tasks.capabilities import PLAIN, WebView
from refbench.tasks.lookup import find_task, folder_task


@dataclass(frozen=True)
class Dataset:
    key: str
    path: Path  # resolved
    kind: str  # how the task reads it into index records (WebView.dataset_kind)
    task: Task
    files: tuple[Path, ...]  # resolved data files, in reading order
    label: str = ""

    @property
    def is_folder(self) -> bool:
        """A folder taken whole as one dataset (a KITMUS suite), not one data file."""
        return self.path.is_dir()

    @property
    def view(self) -> WebView:
        """How the web app shows the task's instances (the task's web capability)."""
        return self.task.web or PLAIN

    @cached_property
    def _held(self) -> frozenset[str | None]:
        """What its files hold (:func:`~refbench.core.identity.data_identity`): a dataset is
        its task, these contents and their splits, wherever the files lie."""
        return frozenset(data_identity(f).sha256 for f in self.files)

    def own_file(self, file: Path | None, sha256: str | None) -> Path | None:
        """The file of this dataset that a run read: the one holding the content it recorded
        (a run on a copy of a suite's file is a run on that file), else the file itself when it
        lies in the dataset (None: neither)."""
        if sha256:
            for f in self.files:
                if data_identity(f).sha256 == sha256:
                    return f
        if file is not None and (file.resolve() in self.files
                                 or (self.is_folder and self.path in file.resolve().parents)):
            return file.resolve()
        return None

    def holds(self, task: str, file: Path | None, sha256: str | None) -> bool:
        """Whether a run of ``task`` on ``file`` (whose content had ``sha256`` when it ran)
        answers this dataset: by content when the run recorded it (a file of the dataset, or any
        file inside a served folder that still holds that content), else (runs recorded before
        refbench kept it) by the file's place."""
        if task != self.task.name:
            return False
        if sha256 and sha256 in self._held:
            return True
        if file is None:
            return False
        f = file.resolve()
        if not sha256:
            return f in self.files or (self.path.is_dir() and self.path in f.parents)
        # Any other file of a served folder (a release's other view, a .jsonlines beside the
        # .v4_gold_conll that is indexed) that still holds what the run read.
        return self.path.is_dir() and self.path in f.parents and f.is_file() \
            and data_identity(f).sha256 == sha256


@dataclass
class Discovery:
    datasets: list[Dataset] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def dataset_key(path: Path, task: str = "") -> str:
    """A key that says which dataset it is: the task, the folder a file lies in and the
    file's name without its extensions (``altentities-recipes-test-…``, ``kitmus-released-…``),
    then a hash of the resolved path that keeps it unique and stable across restarts."""
    resolved = str(path.resolve())
    name = path.name
    for ext in (".gz", ".bz2"):
        name = name.removesuffix(ext)
    words = _slug(name)[:30].strip("-")
    if not path.is_dir():
        words = _slug(name.split(".")[0] or name)[:30].strip("-")
        parent = _slug(path.parent.name)[:20].strip("-")
        if parent and parent != _slug(task):
            words = f"{parent}-{words}"
    if task and words != _slug(task):
        words = f"{_slug(task)}-{words.removeprefix(_slug(task) + '-')}"
    slug = words.strip("-") or "data"
    return f"{slug}-{hashlib.sha1(resolved.encode()).hexdigest()[:8]}"


def suite_files(root: Path) -> list[Path]:
    """The files that hold a folder dataset's instances, once each (the task's
    :meth:`~refbench.tasks.capabilities.FolderRuns.every_file`)."""
    task = folder_task(root)
    return task.folder.every_file(root) if task and task.folder else []


def is_suite(path: Path) -> bool:
    """Whether ``path`` is a folder some task takes whole as one dataset."""
    return folder_task(path) is not None


def suite_root_of(file: Path, task: str) -> Path | None:
    """The folder dataset a data file of ``task`` lies in, if any (a KITMUS subtask file's
    suite)."""
    found = find_task(task)
    return found.folder.folder_of(file) if found and found.folder else None


def classify_file(path: Path) -> tuple[str, Task]:
    """(kind, task) of one data file, by content; RefbenchError when refbench cannot read it."""
    from refbench.tasks.choices import infer_task

    task = infer_task(path, kinds=None)
    return (task.web or PLAIN).dataset_kind(path), task


def open_dataset(path: Path) -> Dataset:
    """One dataset from a folder some task takes whole or a data file (RefbenchError if it is
    neither)."""
    path = path.resolve()
    label = path.name if path.is_dir() else f"{path.parent.name}/{path.name}"
    if path.is_dir():
        task = folder_task(path)
        if task is None or task.folder is None:
            raise RefbenchError("not a folder of data that a task takes whole (refbench ls "
                                "tasks)", path=path)
        files = task.folder.every_file(path)
        if not files:
            raise RefbenchError("the folder holds none of its task's data files", path=path)
        return Dataset(dataset_key(path, task.name), path,
                       (task.web or PLAIN).dataset_kind(path), task, tuple(files), label)
    if not path.is_file():
        raise RefbenchError("no such file or folder", path=path)
    kind, task = classify_file(path)
    return Dataset(dataset_key(path, task.name), path, kind, task, (path,), label)


def discover(paths: list[Path]) -> Discovery:
    """Datasets for every path given; folders that are not suites are walked for data files."""
    found = Discovery()
    seen: set[Path] = set()

    def add(p: Path) -> None:
        try:
            ds = open_dataset(p)
        except RefbenchError as exc:
            found.skipped.append((str(p), exc.message.removeprefix(f"{p}: ")))
            return
        if ds.path not in seen:
            seen.add(ds.path)
            found.datasets.append(ds)

    def walk(folder: Path, root: Path, outside: list[str], visited: set[Path]) -> None:
        real = folder.resolve()
        if real in visited:
            return
        visited.add(real)
        if is_suite(folder):
            add(folder)
            return
        for child in sorted(folder.iterdir()):
            if child.name.startswith("."):
                continue
            if child.is_symlink() and not _inside(child, root):
                outside.append(str(child.relative_to(root)))
                continue
            if child.is_dir():
                walk(child, root, outside, visited)
            elif child.is_file() and not child.name.lower().endswith((".md", ".txt", ".csv",
                                                                     ".py", ".png")):
                add(child)

    for p in paths:
        if p.is_dir() and not is_suite(p):
            root = p.resolve()
            outside: list[str] = []
            walk(root, root, outside, set())
            if outside:
                found.skipped.append((str(p), f"{len(outside)} symbolic link(s) lead outside "
                                      f"the folder and were not followed: "
                                      f"{', '.join(outside[:10])}"
                                      f"{' …' if len(outside) > 10 else ''}"))
        else:
            add(p)
    _leave_out_predictions(found)
    return found


def _leave_out_predictions(found: Discovery) -> None:
    """A file found as data that holds a system's answers to another data file served or to a
    release in refbench's data folder (the same documents, other clusters:
    :mod:`refbench.web.lookalikes`) is not a dataset: it is listed as skipped with what it
    answers."""
    from refbench.web.lookalikes import (
        is_jsonlines,
        jsonlines_under,
        predictions_of,
        released_jsonlines,
    )

    candidates = [d for d in found.datasets if not d.is_folder and is_jsonlines(d.path)]
    if not candidates:
        return
    released = [*jsonlines_under([d.path for d in found.datasets if d.is_folder]),
                *released_jsonlines()]
    files = [d.path for d in candidates]
    for ds in candidates:
        gold = predictions_of(ds.path, released, files)
        if gold is not None:
            found.datasets.remove(ds)
            found.skipped.append((str(ds.path), f"not a dataset: a system's predictions for "
                                  f"{gold} (its documents, with other clusters); score them "
                                  f"with refbench evaluate"))


def _inside(link: Path, root: Path) -> bool:
    """Whether ``link`` resolves to ``root`` or somewhere under it (a dangling or looping link
    resolves nowhere useful and counts as outside)."""
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    return target == root or root in target.parents
