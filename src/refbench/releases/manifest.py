"""The release manifests: what each benchmark's published release is, file by file.

A task folder that has a public release holds ``releases.json`` (data, never code): for every
release its name, licence, source (a repository at a pinned commit or tag), the shortcuts
``NAME:split`` resolves, and every file with its sha256 and published URL. The checksums were
computed from the reference copy of the releases (``../shared/data``), and each published file
was checked against the source repository's tree at that commit (git blob id) when the manifest
was written.

Two forms of a file can be fetched and both are checked: the file as published (``file``,
``sha256``, ``url``) and, where the reference copy keeps it gzipped, that copy
(``mirror``, ``mirror_sha256``), which is what ``--mirror URL`` serves. A file that is in the
reference copy but not published anywhere has ``url: null`` and a ``note``: only a mirror has it.

The manifests are found through the task registry (the package beside each task's ``task.py``),
so the core never names a benchmark; nothing is imported but the task packages themselves.
"""

from __future__ import annotations

import difflib
import importlib.resources
import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import PurePosixPath
from typing import Any

from refbench.core.errors import RefbenchError, UsageError

FORMAT = "refbench.releases.v1"
MANIFEST = "releases.json"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class ReleaseFile:
    """One file of a release: where it goes in the data folder, its checksum and sources."""

    file: str  # relative path in the data folder, as published
    sha256: str
    size: int
    url: str | None  # the published file at a pinned commit; None: not published anywhere
    mirror: str  # relative path on a mirror laid out like the reference copy
    mirror_sha256: str
    mirror_size: int
    note: str = ""

    @property
    def gzipped_on_mirror(self) -> bool:
        """Whether the mirror's copy is the published file gzipped (a different file)."""
        return self.mirror != self.file


@dataclass(frozen=True)
class Release:
    """A benchmark's published release, as one ``releases.json`` entry describes it."""

    name: str
    task: str
    title: str
    licence: str
    source: str
    root: str  # the release's folder in the data folder
    default: str | None  # the split ``NAME`` alone means (None: the whole folder)
    splits: dict[str, str]  # split name -> path relative to ``root``
    files: tuple[ReleaseFile, ...]
    not_included: str = ""
    manifest: str = field(default="", compare=False)

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def mirror_only(self) -> list[ReleaseFile]:
        return [f for f in self.files if f.url is None]


def _relative(value: Any, where: str) -> str:
    """A relative POSIX path that stays inside the data folder, or an error naming it."""
    if not isinstance(value, str) or not value:
        raise RefbenchError(f"{where}: expected a relative path")
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts or "\\" in value:
        raise RefbenchError(f"{where}: {value!r} is not a relative path inside the data folder")
    return value


def _text(entry: dict[str, Any], key: str, where: str, *, optional: bool = False) -> str:
    value = entry.get(key)
    if value is None and optional:
        return ""
    if not isinstance(value, str) or not value:
        raise RefbenchError(f"{where}: expected a non-empty string {key!r}")
    return value


def _sha(entry: dict[str, Any], key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not _SHA256.match(value):
        raise RefbenchError(f"{where}: {key!r} is not a sha256 (64 lowercase hex digits)")
    return value


def _size(entry: dict[str, Any], key: str, where: str) -> int:
    value = entry.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RefbenchError(f"{where}: {key!r} is not a size in bytes")
    return value


def parse_file(entry: Any, where: str) -> ReleaseFile:
    if not isinstance(entry, dict):
        raise RefbenchError(f"{where}: expected an object")
    name = _relative(entry.get("file"), f"{where}: file")
    url = entry.get("url")
    if url is not None and (not isinstance(url, str) or not url.startswith("https://")):
        raise RefbenchError(f"{where}: url must be an https:// address or null")
    if url is None and not entry.get("note"):
        raise RefbenchError(f"{where}: a file with no url needs a note saying why")
    sha = _sha(entry, "sha256", where)
    size = _size(entry, "bytes", where)
    mirror = _relative(entry.get("mirror", name), f"{where}: mirror")
    if mirror != name:
        mirror_sha, mirror_size = _sha(entry, "mirror_sha256", where), _size(
            entry, "mirror_bytes", where)
    else:
        mirror_sha, mirror_size = sha, size
    return ReleaseFile(name, sha, size, url, mirror, mirror_sha, mirror_size,
                       _text(entry, "note", where, optional=True))


def parse_release(entry: Any, where: str) -> Release:
    if not isinstance(entry, dict):
        raise RefbenchError(f"{where}: expected an object")
    name = _text(entry, "name", where)
    if not _NAME.match(name):
        raise RefbenchError(f"{where}: release name {name!r} must be lowercase letters, digits "
                            "and dashes")
    where = f"{where}: {name}"
    root = _relative(entry.get("root"), f"{where}: root")
    splits = entry.get("splits") or {}
    if not isinstance(splits, dict):
        raise RefbenchError(f"{where}: splits must map names to paths")
    splits = {str(k): _relative(v, f"{where}: split {k}") for k, v in splits.items()}
    default = entry.get("default")
    if default is not None and default not in splits:
        raise RefbenchError(f"{where}: default {default!r} is not one of its splits")
    files = entry.get("files")
    if not isinstance(files, list) or not files:
        raise RefbenchError(f"{where}: expected a non-empty list of files")
    parsed = tuple(parse_file(f, f"{where}: file {i + 1}") for i, f in enumerate(files))
    for f in parsed:
        if not PurePosixPath(f.file).is_relative_to(root):
            raise RefbenchError(f"{where}: file {f.file} lies outside the release folder {root}")
    return Release(name=name, task=_text(entry, "task", where), title=_text(entry, "title", where),
                   licence=_text(entry, "licence", where), source=_text(entry, "source", where),
                   root=root, default=default, splits=splits, files=parsed,
                   not_included=_text(entry, "not_included", where, optional=True),
                   manifest=where)


def parse_manifest(text: str, where: str) -> list[Release]:
    """The releases of one ``releases.json``; a malformed one is an error naming it."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RefbenchError(f"{where}: not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise RefbenchError(f"{where}: expected an object with \"format\": \"{FORMAT}\"")
    entries = doc.get("releases")
    if not isinstance(entries, list):
        raise RefbenchError(f"{where}: expected a list of releases")
    return [parse_release(e, where) for e in entries]


def _task_packages() -> list[tuple[str, str]]:
    """(package, origin) of each registered task: the target module's package
    (``pkg.task:TASK``) and the distribution that provides it (``refbench`` for its own)."""
    from refbench.core.registry import TASKS

    return [(e.target.partition(":")[0].rpartition(".")[0], e.origin) for e in TASKS.entries()]


def _manifest_of(package: str) -> tuple[str, str] | None:
    """(text, where) of the package's ``releases.json``; None when it has none."""
    try:
        resource = importlib.resources.files(package) / MANIFEST
    except ModuleNotFoundError:
        return None
    if not resource.is_file():
        return None
    return resource.read_text(encoding="utf-8"), f"{package}/{MANIFEST}"


def _plugin_releases(package: str, origin: str, taken: dict[str, str]) -> list[Release]:
    """A plugin's releases: none, with one warning, when its manifest cannot be read or
    parsed (whatever its import raised); a release whose name is taken is left out, warned."""
    from refbench.core.interrupt import Terminated
    from refbench.core.registry import describe
    from refbench.tasks.lookup import warn_once

    try:
        found = _manifest_of(package)
        releases = parse_manifest(*found) if found is not None else []
    except (KeyboardInterrupt, Terminated):
        raise
    except BaseException as exc:  # a plugin's package or manifest: its releases only are off
        why = exc.message if isinstance(exc, RefbenchError) else describe(exc)
        warn_once(f"plugin {origin}: its releases are not used: {why}")
        return []
    kept = []
    for release in releases:
        if release.name in taken:
            warn_once(f"plugin {origin}: release {release.name} is already declared by "
                      f"{taken[release.name]}; the plugin's is not used")
        else:
            kept.append(release)
            taken[release.name] = f"plugin {origin}"
    return kept


@cache
def all_releases() -> tuple[Release, ...]:
    """Every release of every registered task, in registry order. refbench's own come first
    and keep their names; a plugin's broken manifest disables that plugin's releases only."""
    from refbench.core.registry import BUILTIN

    found: list[Release] = []
    packages = _task_packages()
    for package, origin in packages:
        if origin == BUILTIN and (manifest := _manifest_of(package)) is not None:
            found.extend(parse_manifest(*manifest))
    names = [r.name for r in found]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise RefbenchError(f"release names declared twice: {', '.join(twice)}")
    taken = {r.name: f"refbench ({r.task})" for r in found}
    for package, origin in packages:
        if origin != BUILTIN:
            found.extend(_plugin_releases(package, origin, taken))
    return tuple(found)


def release_names() -> list[str]:
    return [r.name for r in all_releases()]


def find_release(name: str) -> Release | None:
    for release in all_releases():
        if release.name == name:
            return release
    return None


def get_release(name: str) -> Release:
    """The release called ``name``; an unknown name is a usage error with close matches."""
    release = find_release(name)
    if release is not None:
        return release
    close = difflib.get_close_matches(name, release_names(), n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise UsageError(f"unknown release {name!r}.{hint} Known: {', '.join(release_names())} "
                     "(refbench data list)")
