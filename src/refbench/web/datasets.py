"""What the app can show: every data file or suite folder it was given, told apart by content.

A *dataset* is one browsable collection of instances: a KITMUS suite folder (every subtask and
split, refbench's native JSONL or else the official full-text CoNLL), or one data file of any
task refbench reads (KITMUS, KnowRef JSON/TSV, GAP, Winograd, AltEntities, TNE). A folder that is
not a suite is walked, and every readable data file in it becomes a dataset; files that are not
data (resources, system outputs) are listed as skipped with the reason, never fatal.

Dataset keys are stable (a slug of the name plus a hash of the resolved path), so URLs survive a
restart of the server.

A folder is walked inside itself only: a symbolic link that resolves outside the folder given
is not followed (one note lists such links by their own names, never their targets, which the
home page would otherwise show), and no folder is walked twice, so a link loop costs one visit.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from refbench.core.errors import RefbenchError
from refbench.core.io import open_text
from refbench.tasks.kitmus.instance import SUBTASK_DIR

# How a dataset is read into index records (see refbench.web.records).
KINDS = ("kitmus-suite", "kitmus-native", "kitmus-conll", "choice", "altentities", "tne")
_CONLL = (".v4_gold_conll", ".conll", "_conll")


@dataclass(frozen=True)
class Dataset:
    key: str
    path: Path  # resolved
    kind: str
    task: str
    files: tuple[Path, ...]  # resolved data files, in reading order
    label: str = ""

    def holds(self, file: Path) -> bool:
        """Whether a run's data file is (or lies inside) this dataset."""
        f = file.resolve()
        return f in self.files or (self.path.is_dir() and self.path in f.parents)


@dataclass
class Discovery:
    datasets: list[Dataset] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why)


def dataset_key(path: Path) -> str:
    resolved = str(path.resolve())
    name = path.name
    for ext in (".gz", ".bz2"):
        name = name.removesuffix(ext)
    slug = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()[:40] or "data"
    return f"{slug}-{hashlib.sha1(resolved.encode()).hexdigest()[:8]}"


def _base(path: Path) -> str:
    name = path.name
    for ext in (".gz", ".bz2"):
        name = name.removesuffix(ext)
    return name


def _first_json(path: Path) -> dict[str, object] | None:
    try:
        with open_text(path) as fh:
            for line in fh:
                if line.strip():
                    obj = json.loads(line)
                    return obj if isinstance(obj, dict) else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, EOFError):
        return None
    return None


def suite_files(root: Path) -> list[Path]:
    """The files that hold a suite's instances, once each: native JSONL where the suite has it,
    else the full-text CoNLL view (the official release has no native files)."""
    subs = sorted(p for p in root.glob("*/subtask_*_ents") if p.is_dir()
                  and SUBTASK_DIR.match(p.name))
    native = [f for s in subs for f in sorted(s.iterdir())
              if f.is_file() and _base(f).endswith(".jsonl")]
    if native:
        return native
    return [f for s in subs for f in sorted((s / "full-text").glob("*"))
            if f.is_file() and _base(f).endswith(_CONLL)]


def is_suite(path: Path) -> bool:
    return path.is_dir() and any(p.is_dir() and SUBTASK_DIR.match(p.name)
                                 for p in path.glob("*/subtask_*_ents"))


def suite_root_of(file: Path) -> Path | None:
    """The suite folder a KITMUS file lies in (``<root>/<variant>/subtask_<n>_ents/...``)."""
    for parent in file.resolve().parents:
        if SUBTASK_DIR.match(parent.name):
            return parent.parent.parent
    return None


def classify_file(path: Path) -> tuple[str, str]:
    """(kind, task) of one data file, by content; RefbenchError when refbench cannot read it."""
    from refbench.tasks.choices import infer_task

    name = _base(path)
    if name.endswith(".jsonl"):
        head = _first_json(path)
        if head is not None and "nps" in head and "tokens" in head:
            return "tne", "tne"
    task = infer_task(path)
    if task == "kitmus":
        if name.endswith(".jsonl"):
            return "kitmus-native", task
        if name.endswith(_CONLL):
            return "kitmus-conll", task
    if task == "altentities":
        return "altentities", task
    return "choice", task


def open_dataset(path: Path) -> Dataset:
    """One dataset from a suite folder or a data file (RefbenchError if it is neither)."""
    path = path.resolve()
    label = path.name if path.is_dir() else f"{path.parent.name}/{path.name}"
    if path.is_dir():
        if not is_suite(path):
            raise RefbenchError("not a KITMUS suite folder (no <variant>/subtask_<n>_ents/)",
                                path=path)
        files = suite_files(path)
        if not files:
            raise RefbenchError("the suite has no native .jsonl or full-text CoNLL files",
                                path=path)
        return Dataset(dataset_key(path), path, "kitmus-suite", "kitmus", tuple(files), label)
    if not path.is_file():
        raise RefbenchError("no such file or folder", path=path)
    kind, task = classify_file(path)
    return Dataset(dataset_key(path), path, kind, task, (path,), label)


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
    return found


def _inside(link: Path, root: Path) -> bool:
    """Whether ``link`` resolves to ``root`` or somewhere under it (a dangling or looping link
    resolves nowhere useful and counts as outside)."""
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    return target == root or root in target.parents
