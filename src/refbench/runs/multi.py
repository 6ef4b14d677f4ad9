"""One model on several benchmarks in one go (``refbench run --data A --data B ...`` and
``refbench.run(model, [A, B])``): each benchmark runs exactly as it would alone (a data file
through :func:`~refbench.runs.runner.run_model`, a folder through
:func:`~refbench.runs.runner.run_suite`) into ``OUT/<name>/`` and is recorded in the store;
``OUT/summary.json`` then holds one row per benchmark: its headline figure with its 95%
interval, how many instances were run of how many the data holds (n of N, the Result's
coverage), and the chance level (the mean of 1 / candidates over the instances the run saw).
``refbench report OUT`` renders the summary (:mod:`refbench.reporting.summary`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, cast

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.invalid import InvalidInstances
from refbench.core.io import finite, write_text_atomic
from refbench.models.base import ChoiceModel
from refbench.runs.record import RunSettings
from refbench.runs.runner import Engine, run_model, run_suite
from refbench.runs.store import Store
from refbench.tasks.base import Task

SUMMARY = "summary.json"
FORMAT = "refbench.summary.v1"


class SummaryRow(TypedDict, total=False):
    """A benchmark's row of ``summary.json``: its headline figure (``metric``, ``value``,
    ``ci95``), n of N (``n``, ``of``), the chance level, and where its run went."""

    benchmark: str
    folder: str
    task: str | None
    data: str
    split: str | None
    metric: str | None
    value: float | None
    ci95: list[float] | None
    n: int
    of: int | None
    chance: float | None
    out_dir: str
    run_id: int | None
    run_ids: list[int] | None


class Skipped(TypedDict):
    """A benchmark ``--data all`` passed over, with its one-line reason."""

    benchmark: str
    reason: str


class Summary(TypedDict, total=False):
    """``summary.json`` of a several-benchmark run (format :data:`FORMAT`)."""

    format: str
    model: str
    system: str
    limit: int | None
    out_dir: str
    rows: list[SummaryRow]
    skipped: list[Skipped]


@dataclass(frozen=True)
class Benchmark:
    """One ``--data`` of a several-benchmark run: the name it was given (a release name such
    as ``gap:test``, or a path), the file or folder it stands for, and its folder under OUT."""

    name: str
    path: Path
    folder: str


def folder_names(names: Sequence[str], paths: Sequence[Path]) -> list[str]:
    """A folder name per benchmark, distinct: a release reference with ``:`` made ``-``
    (``gap:test`` -> ``gap-test``), a path by its file name without extensions (the parent
    folder's name in front where two would be the same, then a number)."""
    out: list[str] = []
    for name, path in zip(names, paths, strict=True):
        if Path(name) == path or "/" in name or "." in name:
            base = path.name.split(".")[0] or path.name
            if base in out:
                base = f"{path.parent.name}-{base}"
        else:
            base = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")
        unique, k = base, 2
        while unique in out:
            unique, k = f"{base}-{k}", k + 1
        out.append(unique)
    return out


def benchmarks(names: Sequence[str], paths: Sequence[Path]) -> list[Benchmark]:
    return [Benchmark(n, p, f) for n, p, f in
            zip(names, paths, folder_names(names, paths), strict=True)]


def run_one(settings: RunSettings, data: Path, out: Path, *, task: Task | None = None,
            store: Store | None = None, progress: bool = True,
            on_invalid: InvalidInstances | None = None, engine: Engine | None = None,
            model: ChoiceModel | None = None) -> dict[str, Any]:
    """One benchmark: a folder run whole, a data file run (what ``refbench run`` does).
    ``model``: an already built model (one of the user's session) instead of
    ``settings.model``'s."""
    if data.is_dir():
        return run_suite(settings, data, out, store=store, progress=progress,
                         on_invalid=on_invalid, task=task, engine=engine, model=model)
    return run_model(settings, data, out, task=task, store=store, progress=progress,
                     on_invalid=on_invalid, engine=engine, model=model)


def run_benchmarks(settings: RunSettings, benches: Sequence[Benchmark], out: Path, *,
                   task: Task | None = None, store: Store | None = None,
                   progress: bool = True, on_invalid: InvalidInstances | None = None,
                   engine: Engine | None = None,
                   skip: Callable[[Benchmark, RefbenchError], bool] | None = None,
                   model: ChoiceModel | None = None) -> Summary:
    """Run every benchmark into ``out/<folder>/`` and write ``out/summary.json``; returns the
    summary (``rows``; ``skipped``: what ``skip`` let pass, each with its one-line reason).
    ``skip(bench, error)``: whether an error of that benchmark is skipped (``--data all``
    skips what the model cannot run) rather than raised."""
    if not benches:
        raise UsageError("no benchmarks to run")
    rows: list[SummaryRow] = []
    skipped: list[Skipped] = []
    for bench in benches:
        try:
            result = run_one(settings, bench.path, out / bench.folder, task=task, store=store,
                             progress=progress, on_invalid=on_invalid, engine=engine,
                             model=model)
        except RefbenchError as exc:
            if skip is None or not skip(bench, exc):
                raise
            skipped.append({"benchmark": bench.name, "reason": exc.render()})
            continue
        rows.append(summary_row(bench, result, out / bench.folder))
    summary: Summary = {"format": FORMAT, "model": settings.model, "system": settings.name,
               "limit": settings.limit, "out_dir": str(out), "rows": rows, "skipped": skipped}
    write_text_atomic(out / SUMMARY, json.dumps(finite(summary), indent=2, ensure_ascii=False,
                                                allow_nan=False) + "\n")
    return summary


def summary_row(bench: Benchmark, result: dict[str, Any], out: Path) -> SummaryRow:
    """A benchmark's row of the summary, from its run (or folder run) result and the
    predictions under ``out``."""
    from refbench.tasks.lookup import find_task

    task = find_task(str(result.get("task")))
    heads = task.headline_metrics if task is not None else ("accuracy",)
    metric = next((m for m in heads if isinstance(result.get(m), int | float)), None)
    n_candidates = _candidate_counts(out)
    value: float | None
    if metric is not None:
        value = float(result[metric])
        ci = (result.get("ci95") or {}).get(metric)
    else:  # a folder result without one headline figure: accuracy over all its runs
        metric, value, ci = _pooled_accuracy(out)
    n, total = _coverage(result, len(n_candidates), out)
    if ci is None and metric == "accuracy":  # a folder result without one: Wilson's, pooled
        ci = _pooled_accuracy(out)[2]
    return {"benchmark": bench.name, "folder": bench.folder, "task": result.get("task"),
            "data": str(bench.path.resolve()), "split": result.get("split"), "metric": metric,
            "value": value, "ci95": list(ci) if isinstance(ci, list | tuple) else None,
            "n": n, "of": total,
            "chance": (sum(1 / k for k in n_candidates if k) / len(n_candidates)
                       if n_candidates else None),
            "out_dir": str(out), "run_id": result.get("run_id"),
            "run_ids": result.get("run_ids")}


def _prediction_lines(out: Path) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    for path in sorted(out.rglob("predictions.jsonl")):
        with path.open(encoding="utf-8") as fh:
            lines += [json.loads(line) for line in fh if line.strip()]
    return lines


def _candidate_counts(out: Path) -> list[int]:
    return [len(p.get("scores") or ()) for p in _prediction_lines(out)]


def _pooled_accuracy(out: Path) -> tuple[str, float | None, list[float] | None]:
    from refbench.metrics.intervals import wilson

    right = total = 0
    for path in sorted(out.rglob("metrics.json")):
        m = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(m.get("accuracy"), int | float) and m.get("n_with_gold"):
            total += int(m["n_with_gold"])
            right += round(float(m["accuracy"]) * int(m["n_with_gold"]))
    if not total:
        return "accuracy", None, None
    ci = wilson(right, total)
    return "accuracy", right / total, list(ci) if ci else None


def _coverage(result: dict[str, Any], n_predicted: int, out: Path | None = None
              ) -> tuple[int, int | None]:
    """n of N: the instances the run predicted, of those its data holds (the Result's
    coverage; a folder run's summed over its files)."""
    from refbench.core.result import coverage_of

    partial = result.get("data_coverage")  # a folder run over part of its files' instances
    if isinstance(partial, dict) and isinstance(partial.get("n"), int):
        of = partial.get("of")
        return int(partial["n"]), of if isinstance(of, int) else None
    if "cells" in result or "runs" in result or "n" not in result:  # a folder's result
        n, of = _folder_coverage(out) if out is not None else (0, None)
        if n:
            return n, of
        return n_predicted, n_predicted
    cov = coverage_of(result)
    return cov.n, cov.of


def _folder_coverage(out: Path) -> tuple[int, int | None]:
    """n of N of a folder run, summed over its files' runs (N unknown if one's is)."""
    from refbench.core.result import coverage_of

    covered = [coverage_of(json.loads(p.read_text(encoding="utf-8")))
               for p in sorted(out.rglob("metrics.json"))]
    ofs = [c.of for c in covered]
    return sum(c.n for c in covered), (sum(o for o in ofs if o is not None)
                                       if all(o is not None for o in ofs) else None)


def read_summary(path: Path) -> Summary | None:
    """The summary of a several-benchmark run folder (``path/summary.json``), or None (its
    fields are read as they are: :func:`refbench.reporting.summary.summary_table` takes
    each with ``get``)."""
    file = path / SUMMARY if path.is_dir() else path
    if not file.is_file():
        return None
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise RefbenchError("not a summary of a several-benchmark run (invalid JSON)",
                            path=file) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    return cast(Summary, data)
