"""The one run path: a model on what to run (a data file, a folder a task takes whole such as a
KITMUS suite or the WinoBias release, or several benchmarks), returning the runs in memory:
each data file's typed :class:`~refbench.core.result.Result` with its instances and the
model's outputs, a folder's combined result, and for several benchmarks the summary.
``refbench run`` and ``refbench.run`` both come here.

What a folder is, is data the path reads from the task's folder capability
(:class:`~refbench.tasks.capabilities.folder.FolderRuns`: its files, their labels, how they
combine), not a separate function. Every data file runs through
:func:`refbench.runs.runner.run_file` and is recorded by :mod:`refbench.runs.record`, which
serialises the objects it is given; the folder result and the summary are made from those
objects, and nothing written is read back. With no output folder (``out=None``) nothing is
written but the store's rows and prediction cache.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.invalid import InvalidInstances
from refbench.core.result import Result
from refbench.models.base import ChoiceModel, build_model
from refbench.runs.multi import Benchmark, Skipped, Summary, summary, summary_row, write_summary
from refbench.runs.record import RunSettings, combine_folder
from refbench.runs.runner import Engine, FileRun, run_file
from refbench.runs.store import Store
from refbench.tasks.base import Task
from refbench.tasks.lookup import folder_task_of


@dataclass(frozen=True)
class BenchmarkRun:
    """One benchmark's run: its data files' runs and, for a folder, the combined result."""

    bench: Benchmark
    task: Task
    files: tuple[FileRun, ...]
    #: A folder run's combined result (the task's table, ``OUT/<result_file>``); None for a
    #: data file.
    folder_result: dict[str, Any] | None = None

    @property
    def result(self) -> dict[str, Any]:
        """What ``refbench run --json`` prints of it: a data file's metrics (with its store
        row's id), or the folder's combined result."""
        if self.folder_result is not None:
            return self.folder_result
        return self.files[0].metrics


@dataclass(frozen=True)
class Ran:
    """Everything a call of :func:`run` ran: one :class:`BenchmarkRun` per benchmark, in
    order; for several benchmarks the summary (with the ones ``skip`` let pass)."""

    benchmarks: tuple[BenchmarkRun, ...]
    summary: Summary | None = None

    @property
    def results(self) -> list[Result]:
        """Every data file's Result, benchmark by benchmark, each folder's in the order of
        its files' run folders (as a folder run's folders are listed)."""
        return [f.recorded.result for b in self.benchmarks
                for f in sorted(b.files, key=lambda f: f.place)]


def run(settings: RunSettings, benches: Sequence[Benchmark], out: Path | None, *,
        several: bool = False, task: Task | None = None, store: Store | None = None,
        progress: bool = True, model: ChoiceModel | None = None,
        on_invalid: InvalidInstances | None = None, engine: Engine | None = None,
        skip: Callable[[Benchmark, RefbenchError], bool] | None = None) -> Ran:
    """Run ``settings`` on each of ``benches`` into ``out/<bench.folder>/`` (``out`` itself for
    one benchmark given alone; None: no files) and return the runs. ``several``: a
    several-benchmark run (``summary.json`` and its rows); ``task``: the task, inferred from
    each data file when None; ``model``: a model object to run instead of building
    ``settings.model`` (built once per benchmark otherwise, as a benchmark run alone builds
    it); ``on_invalid`` (``--skip-invalid``): collects the malformed instances skipped;
    ``skip(bench, error)``: whether an error of that benchmark is skipped (``--data all``
    skips what the model cannot run) rather than raised."""
    if not benches:
        raise UsageError("no benchmarks to run")
    done: list[BenchmarkRun] = []
    skipped: list[Skipped] = []
    for bench in benches:
        place = out / bench.folder if out is not None and several else out
        try:
            done.append(_benchmark(settings, bench, place, task=task, store=store,
                                   progress=progress, model=model, on_invalid=on_invalid,
                                   engine=engine))
        except RefbenchError as exc:
            if skip is None or not skip(bench, exc):
                raise
            skipped.append({"benchmark": bench.name, "reason": exc.render()})
    if not several:
        return Ran(tuple(done))
    rows = [summary_row(b.bench, b.result, b.files,
                        out / b.bench.folder if out is not None else None) for b in done]
    made = summary(settings, rows, skipped, out)
    if out is not None:
        write_summary(out, made)
    return Ran(tuple(done), made)


def _benchmark(s: RunSettings, bench: Benchmark, out: Path | None, *, task: Task | None,
               store: Store | None, progress: bool, model: ChoiceModel | None,
               on_invalid: InvalidInstances | None, engine: Engine | None) -> BenchmarkRun:
    """A data file run, or a folder run whole: every data file of ``s.split`` the task's
    folder capability lists, with one model, combined into the folder's result."""
    if not bench.path.is_dir():
        run = run_file(s, bench.path, out, task=task, store=store, progress=progress,
                       model=model, on_invalid=on_invalid, engine=engine)
        return BenchmarkRun(bench, run.task, (run,))
    t = folder_task_of(bench.path, task)
    assert t.folder is not None
    if s.limit is not None and t.folder.limit_refused:
        raise UsageError(f"--limit on a {t.title} folder: {t.folder.limit_refused}")
    built = model or build_model(s.model, s.model_options)
    runs = tuple(run_file(s, gold, out / sub if out is not None else None, task=t,
                          store=store, progress=progress, model=built, on_invalid=on_invalid,
                          engine=engine, place=Path(sub), labels=labels)
                 for gold, sub, labels in t.folder.files(bench.path, split=s.split))
    combined = combine_folder(t, bench.path, out, [(r.labels, r.metrics) for r in runs],
                              split=s.split, model=s.model, system=s.name, store=store,
                              extra=on_invalid.report() if on_invalid is not None else None)
    return BenchmarkRun(bench, t, runs, combined)


def run_suite(settings: RunSettings | str, suite: Path, out: Path, *,
              store: Store | None = None, progress: bool = True,
              on_invalid: InvalidInstances | None = None, task: Task | None = None,
              engine: Engine | None = None) -> dict[str, Any]:
    """A folder's combined result (:func:`run` on the folder): the short form tests use."""
    s = RunSettings(settings) if isinstance(settings, str) else settings
    ran = run(s, [Benchmark(str(suite), Path(suite), "")], Path(out), task=task, store=store,
              progress=progress, on_invalid=on_invalid, engine=engine)
    return ran.benchmarks[0].result
