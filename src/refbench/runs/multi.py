"""One model on several benchmarks in one go (``refbench run --data A --data B ...`` and
``refbench.run(model, [A, B])``): each benchmark runs through the one run path
(:func:`refbench.runs.path.run`) exactly as it would alone, into ``OUT/<name>/``, and is
recorded in the store; ``OUT/summary.json`` then holds one row per benchmark, made from the
runs in memory: its headline figure with its 95% interval, how many instances were run of how
many the data holds (n of N, the Result's coverage), and the chance level (the mean of
1 / candidates over the instances the run saw). ``refbench report OUT`` renders the summary
(:mod:`refbench.reporting.summary`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, cast

from refbench.core.errors import RefbenchError
from refbench.core.io import finite, write_text_atomic
from refbench.runs.record import RunSettings
from refbench.runs.runner import FileRun

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
    out_dir: str | None
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
    out_dir: str | None
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


def summary(settings: RunSettings, rows: Sequence[SummaryRow], skipped: Sequence[Skipped],
            out: Path | None) -> Summary:
    """The summary of a several-benchmark run; written to ``out/summary.json`` (when there is
    an ``out``) by :func:`write_summary`."""
    return {"format": FORMAT, "model": settings.model, "system": settings.name,
            "limit": settings.limit, "out_dir": str(out) if out is not None else None,
            "rows": list(rows), "skipped": list(skipped)}


def write_summary(out: Path, made: Summary) -> None:
    write_text_atomic(out / SUMMARY, json.dumps(finite(made), indent=2, ensure_ascii=False,
                                                allow_nan=False) + "\n")


def summary_row(bench: Benchmark, result: dict[str, Any], runs: Sequence[FileRun],
                out: Path | None) -> SummaryRow:
    """A benchmark's row of the summary, from its result (a data file's metrics, or a folder
    run's combined result) and its data files' runs, in memory: the headline figure, n of N,
    and the chance level over the instances run (its runs taken in their folders' order)."""
    from refbench.tasks.lookup import find_task

    task = find_task(str(result.get("task")))
    heads = task.headline_metrics if task is not None else ("accuracy",)
    metric = next((m for m in heads if isinstance(result.get(m), int | float)), None)
    ordered = sorted(runs, key=lambda r: r.place)
    n_candidates = [len(o.scores or ()) for r in ordered for o in r.outputs]
    value: float | None
    if metric is not None:
        value = float(result[metric])
        ci = (result.get("ci95") or {}).get(metric)
    else:  # a folder result without one headline figure: accuracy over all its runs
        metric, value, ci = _pooled_accuracy(ordered)
    n, total = _coverage(result, len(n_candidates), ordered)
    if ci is None and metric == "accuracy":  # a folder result without one: Wilson's, pooled
        ci = _pooled_accuracy(ordered)[2]
    return {"benchmark": bench.name, "folder": bench.folder, "task": result.get("task"),
            "data": str(bench.path.resolve()), "split": result.get("split"), "metric": metric,
            "value": value, "ci95": list(ci) if isinstance(ci, list | tuple) else None,
            "n": n, "of": total,
            "chance": (sum(1 / k for k in n_candidates if k) / len(n_candidates)
                       if n_candidates else None),
            "out_dir": str(out) if out is not None else None, "run_id": result.get("run_id"),
            "run_ids": result.get("run_ids")}


def _pooled_accuracy(runs: Sequence[FileRun]) -> tuple[str, float | None, list[float] | None]:
    """Accuracy over the files' instances with gold: the headline's pooled proportion
    (:func:`refbench.tasks.headline.default_figures`: Wilson's interval of the files' exact
    counts); where a file's accuracy is not an exact count of its n, their weighted mean
    without an interval (no count is guessed from a rounded accuracy)."""
    from refbench.tasks.headline import Headline, default_figures

    scored = [run for run in runs if isinstance(run.metrics.get("accuracy"), int | float)
              and run.metrics.get("n_with_gold")]
    if not scored:
        return "accuracy", None, None
    figure = default_figures((Headline("accuracy", "Accuracy"),),
                             [run.recorded.result for run in scored])[0]
    if figure.value is not None:
        return "accuracy", figure.value, list(figure.interval) if figure.interval else None
    total = sum(int(run.metrics["n_with_gold"]) for run in scored)
    mean = sum(float(run.metrics["accuracy"]) * int(run.metrics["n_with_gold"])
               for run in scored) / total
    return "accuracy", mean, None


def _coverage(result: dict[str, Any], n_predicted: int, runs: Sequence[FileRun]
              ) -> tuple[int, int | None]:
    """n of N: the instances the run predicted, of those its data holds (the Result's
    coverage; a folder run's summed over its files)."""
    from refbench.core.result import coverage_of

    partial = result.get("data_coverage")  # a folder run over part of its files' instances
    if isinstance(partial, dict) and isinstance(partial.get("n"), int):
        of = partial.get("of")
        return int(partial["n"]), of if isinstance(of, int) else None
    if "cells" in result or "runs" in result or "n" not in result:  # a folder's result
        covered = [r.recorded.result.coverage for r in runs]
        ofs = [c.of for c in covered]
        n = sum(c.n for c in covered)
        if n:
            return n, (sum(o for o in ofs if o is not None)
                       if all(o is not None for o in ofs) else None)
        return n_predicted, n_predicted
    cov = coverage_of(result)
    return cov.n, cov.of


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
