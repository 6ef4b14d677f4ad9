"""``refbench run --data A --data B ...``: what several ``--data`` (or ``--data all``) stand for,
each with the name it was given."""

from __future__ import annotations

import os
from collections.abc import Callable
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


def several_benchmarks(data: tuple[Path | str, ...]
                       ) -> tuple[list[str], list[Path], Callable[[Any, Any], bool]]:
    """The benchmarks several ``--data`` (``--data all``: every release in the data folder)
    stand for: each one's name as it was given and its path, and whether a benchmark's error
    is skipped (``--data all`` skips, with a line, what the model cannot run)."""
    from refbench.core.errors import UsageError
    from refbench.releases.cache import every_release

    names: list[str] = []
    paths: list[Path] = []
    for d in data:
        if d == ALL:
            for name, path, why in every_release():
                if path is None:
                    click.echo(f"skipped {name}: {why}", err=True)
                elif name not in names:
                    names.append(name)
                    paths.append(path)
        elif isinstance(d, Path):
            names.append(given_name(d))
            paths.append(d)
    if not paths:
        raise UsageError("--data all: no release is in the data folder (refbench data list)")
    skippable = ALL in data

    def skip(bench: Any, exc: Any) -> bool:
        if skippable:
            click.echo(f"skipped {bench.name}: {exc.render()}", err=True)
        return skippable

    return names, paths, skip


def warn_skipped(invalid: Any) -> None:
    if invalid:
        click.secho(f"WARNING: {invalid.summary()}", err=True, fg="yellow", bold=True)
