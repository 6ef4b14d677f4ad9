"""The data folder that ``refbench data get`` fills, and what a release name resolves to there.

The folder is laid out like the reference copy of the releases: one folder per release root
(``gap/``, ``winograd/``, ``kitmus-official/``), each file under its published name. A file
fetched from a mirror that keeps it gzipped stays gzipped (``test.v4_gold_conll.gz``: the
KITMUS release is 32 MB so and 885 MB as published); every reader in refbench opens both
forms, and both forms are checked against their own pinned sha256 when fetched.

``--data NAME`` means the release's default split (a file) or, when it has none, its folder;
``NAME:SPLIT`` a named split; ``NAME:PATH`` any file or folder inside the release's folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from refbench.core.errors import RefbenchError, UsageError
from refbench.releases.manifest import (
    Release,
    ReleaseFile,
    all_releases,
    find_release,
    get_release,
)

ENV_DIR = "REFBENCH_DATA_DIR"


def data_dir(explicit: str | Path | None = None) -> Path:
    """``explicit``, else ``$REFBENCH_DATA_DIR``, else ``$XDG_DATA_HOME/refbench/data``
    (``~/.local/share/refbench/data``): a folder of its own, beside the per-user results store
    that refbench 0.1 kept in ``$XDG_DATA_HOME/refbench``."""
    if explicit is not None:
        return Path(explicit)
    if os.environ.get(ENV_DIR):
        return Path(os.environ[ENV_DIR])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "refbench" / "data"


def present(root: Path, entry: ReleaseFile) -> Path | None:
    """The form of ``entry`` in the data folder whose size is the pinned one, or None (a
    size check only: a full checksum of the 885 MB KITMUS release would slow every command;
    ``data list --verify`` hashes)."""
    for rel, size in ((entry.file, entry.size), (entry.mirror, entry.mirror_size)):
        path = root / rel
        try:
            if path.is_file() and path.stat().st_size == size:
                return path
        except OSError:
            continue
    return None


def verified(root: Path, entry: ReleaseFile) -> Path | None:
    """The form of ``entry`` in the data folder whose sha256 is the pinned one, or None."""
    from refbench.core.io import sha256_file

    for rel, sha in ((entry.file, entry.sha256), (entry.mirror, entry.mirror_sha256)):
        path = root / rel
        try:
            if path.is_file() and sha256_file(path) == sha:
                return path
        except OSError:
            continue
    return None


@dataclass(frozen=True)
class Status:
    """What of a release is in the data folder."""

    release: Release
    root: Path
    have: tuple[ReleaseFile, ...]
    missing: tuple[ReleaseFile, ...]

    @property
    def state(self) -> str:
        if not self.missing:
            return "complete"
        return "partial" if self.have else "absent"


def status(release: Release, root: Path, *, verify: bool = False) -> Status:
    """Which files of ``release`` are in ``root`` (by size; by sha256 with ``verify``)."""
    check = verified if verify else present
    have: list[ReleaseFile] = []
    missing: list[ReleaseFile] = []
    for entry in release.files:
        (have if check(root, entry) is not None else missing).append(entry)
    return Status(release, root, tuple(have), tuple(missing))


def split_reference(text: str) -> tuple[str, str | None]:
    """``NAME`` or ``NAME:SPLIT`` as (name, split or None)."""
    name, sep, split = text.partition(":")
    return name, (split if sep else None)


def looks_like_release(text: str) -> bool:
    """Whether ``text`` names a known release (``NAME`` or ``NAME:...``)."""
    name, _ = split_reference(text)
    return bool(name) and "/" not in name and find_release(name) is not None


def near_release(text: str) -> str | None:
    """The release name ``text`` was probably meant to be (a mistyped ``NAME[:SPLIT]`` with no
    path separator or file extension), or None."""
    import difflib

    from refbench.releases.manifest import release_names

    name, _ = split_reference(text)
    if not name or "/" in text or "." in name:
        return None
    close = difflib.get_close_matches(name, release_names(), n=1, cutoff=0.75)
    return close[0] if close else None


def resolve(reference: str, root: Path | None = None) -> Path:
    """The path ``NAME[:SPLIT]`` stands for in the data folder; an error that says how to get
    the release when it is not there."""
    root = data_dir() if root is None else root
    name, split = split_reference(reference)
    release = get_release(name)
    if split is None:
        split = release.default
    if split is None:
        rel = release.root
    elif split in release.splits:
        rel = f"{release.root}/{release.splits[split]}"
    else:
        inner = PurePosixPath(split)
        if inner.is_absolute() or ".." in inner.parts:
            raise UsageError(f"{reference}: {split!r} is not a path inside the release")
        rel = f"{release.root}/{split}"
    folder = root / release.root
    state = status(release, root)
    if state.state == "absent":
        raise RefbenchError(f"release {name} is not in the data folder {root}: run `refbench "
                            f"data get {name}` (or set {ENV_DIR} to where it is)")
    path = root / rel
    for candidate in (path, path.with_name(path.name + ".gz")):
        if candidate.exists():
            return candidate
    known = ", ".join(sorted(release.splits)) or "none"
    missing = [f for f in state.missing if _under(f, rel)]
    if missing:
        raise RefbenchError(f"{reference}: {len(missing)} file(s) of release {name} are missing "
                            f"from {folder} (e.g. {missing[0].file}): run `refbench data get "
                            f"{name}` again")
    raise UsageError(f"{reference}: no such split or path in release {name} (splits: {known}; "
                     f"or a path inside {folder})")


def data_reference(reference: str, root: Path | None = None) -> Path:
    """What ``--data NAME[:SPLIT]`` reads: :func:`resolve`, except that a release named alone
    whose task takes no folder whole and which has no default split (AltEntities: one file
    per domain and split) is refused naming its splits, rather than handed on as a folder
    that every command would refuse."""
    name, split = split_reference(reference)
    if split is None:
        release = get_release(name)
        if release.default is None and release.splits and not _taken_whole(release):
            names = ", ".join(f"{release.name}:{s}" for s in release.splits)
            raise UsageError(f"{release.name}: name one of its splits ({names}); its folder "
                             "is not data a command reads whole")
    return resolve(reference, root)


def _taken_whole(release: Release) -> bool:
    from refbench.tasks.lookup import find_task

    task = find_task(release.task)
    return task is None or task.folder is not None


def _under(entry: ReleaseFile, rel: str) -> bool:
    for path in (entry.file, entry.mirror):
        if path == rel or PurePosixPath(path).is_relative_to(rel) or path == f"{rel}.gz":
            return True
    return False


def reference_of(path: str | Path, root: Path | None = None) -> str | None:
    """``NAME:SPLIT`` for a file of a release in the data folder (what ``resolve`` turns back
    into ``path``), or None: the name people use for the data, in messages."""
    from refbench.releases.manifest import all_releases

    root = data_dir() if root is None else root
    try:
        target = Path(path).resolve()
    except OSError:
        return None
    for release in all_releases():
        try:
            if (root / release.root).resolve() == target:
                return release.name
        except OSError:
            continue
        for split, rel in sorted(release.splits.items()):
            base = root / release.root / rel
            for candidate in (base, base.with_name(base.name + ".gz")):
                try:
                    if candidate.resolve() == target:
                        return f"{release.name}:{split}"
                except OSError:
                    continue
    return None
def resolve_reference(value: str) -> Path | None:
    """What a ``DATA`` option makes of a value that is no existing path: the release file or
    folder ``NAME[:SPLIT]`` stands for, None when it names no release, an error for a name
    that is one letter off a release's or a release not fetched yet."""
    if looks_like_release(value):
        return data_reference(value)
    near = near_release(value)
    if near is not None:
        raise UsageError(f"{value}: no such file, and no release of that name; did you mean "
                         f"{near}? (refbench data list)")
    return None


def every_release() -> list[tuple[str, Path | None, str]]:
    """(name, path, why not) of every release with files in the data folder, in the order of
    ``refbench data list``: the path its name stands for, or None and the one-line reason:
    what ``--data all`` stands for."""
    root = data_dir()
    out: list[tuple[str, Path | None, str]] = []
    for release in all_releases():
        if status(release, root).state == "absent":
            continue
        try:
            out.append((release.name, data_reference(release.name, root), ""))
        except RefbenchError as exc:
            out.append((release.name, None, exc.message))
    return out
