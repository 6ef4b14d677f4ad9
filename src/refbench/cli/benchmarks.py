"""``refbench run --data A --data B ...``: what several ``--data`` (or ``--data all``) stand for,
each with the name it was given."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from refbench.core.commands import DataPath, print_json

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
    from refbench.releases.cache import data_dir, data_reference, status
    from refbench.releases.manifest import all_releases

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


def run_several(settings: Any, data: tuple[Path | str, ...], task: Any, out: Path, *,
                 store: Path | None, no_store: bool, skip_invalid: bool, engine: Any,
                 as_json: bool, quiet: bool) -> None:
    """Several benchmarks (``--data A --data B``, ``--data all``) into ``out/<name>/`` each,
    and the cross-benchmark table."""
    from refbench.core.errors import RefbenchError, UsageError
    from refbench.core.invalid import InvalidInstances
    from refbench.reporting.summary import summary_text
    from refbench.runs.multi import benchmarks, run_benchmarks
    from refbench.runs.store import Store

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

    def skip(bench: Any, exc: RefbenchError) -> bool:
        if skippable:
            click.echo(f"skipped {bench.name}: {exc.render()}", err=True)
        return skippable

    st = None if no_store else Store(store)
    if st is not None:
        click.echo(st.describe(), err=True)
    for note in st.notes if st else ():
        click.echo(note, err=True)
    invalid = InvalidInstances() if skip_invalid else None
    summary = run_benchmarks(settings, benchmarks(names, paths), out, task=task, store=st,
                             progress=not quiet and not as_json, on_invalid=invalid,
                             engine=engine, skip=skip)
    warn_skipped(invalid)
    if as_json:
        print_json(summary)
    else:
        click.echo(summary_text(summary, "md"), nl=False)
        click.echo(f"runs and summary: {out}" + (f"; recorded in {st.path}" if st else ""))


def warn_skipped(invalid: Any) -> None:
    if invalid:
        click.secho(f"WARNING: {invalid.summary()}", err=True, fg="yellow", bold=True)
