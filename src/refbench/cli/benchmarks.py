"""``refbench run --data A --data B ...``: what several ``--data`` (or ``--data all``) stand for,
each with the name it was given."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from refbench.core.commands import DataPath

#: ``--data all``: every release in the data folder.
ALL = "all"
_NAMES = "refbench.data_names"


class BenchmarkData(DataPath):
    """A ``DATA`` value that also remembers the name it was given (``gap:test``) for the
    several-benchmark table, and lets ``all`` (when no such file exists) stand for every
    release in the data folder."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if value == ALL and not os.path.lexists(value):
            return ALL
        path = super().convert(value, param, ctx)
        if ctx is not None and isinstance(value, str):
            ctx.meta.setdefault(_NAMES, {})[str(path)] = value
        return path


BENCHMARK_DATA = BenchmarkData()


def given_name(path: Path) -> str:
    """The name ``path`` was given on the command line (itself when it was given as a path)."""
    ctx = click.get_current_context(silent=True)
    names: dict[str, str] = ctx.meta.get(_NAMES, {}) if ctx is not None else {}
    return names.get(str(path), str(path))


def every_release() -> list[tuple[str, Path | None, str]]:
    """(name, path, why not) of every release with files in the data folder, in the order of
    ``refbench data list``: the path its name stands for, or None and the one-line reason."""
    from refbench.core.errors import RefbenchError
    from refbench.releases.cache import data_dir, resolve, status
    from refbench.releases.manifest import all_releases

    root = data_dir()
    out: list[tuple[str, Path | None, str]] = []
    for release in all_releases():
        if status(release, root).state == "absent":
            continue
        try:
            out.append((release.name, resolve(release.name, root), ""))
        except RefbenchError as exc:
            out.append((release.name, None, exc.message))
    return out
