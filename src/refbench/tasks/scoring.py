"""``refbench evaluate`` for every registered task: gold plus predictions in, one result out.

Whatever ``refbench run`` writes is accepted (a run folder, its ``predictions.jsonl``, a whole
folder run's ``--out``), and so are each task's own prediction formats: each task scores
through its :meth:`~refbench.tasks.base.Task.evaluate`, or, for a folder of gold, its folder
capability's :meth:`~refbench.tasks.capabilities.FolderRuns.evaluate`. Choice tasks share one
definition of accuracy and its slices with the runner
(:meth:`~refbench.tasks.base.Task.choice_metrics`), so a run scored again here gives the same
figures. Every result names its system, data and split.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.invalid import InvalidInstances
from refbench.core.io import sha256_file
from refbench.core.result import (
    BY_MISSING,
    Coverage,
    Result,
    coverage_of,
    gold_mismatch,
    run_metrics_beside,
    system_of,
)
from refbench.core.types import ChoiceInstance
from refbench.tasks.answers import read_choice_answers, system_name
from refbench.tasks.base import Task
from refbench.tasks.belonging import NameOf, check_belongs, check_counts


def score_choices(task: Task, data: Path, predictions: Path,
                  instances: Sequence[ChoiceInstance], answers: Sequence[int | None], *,
                  answers_norm: Sequence[int | None] | None = None,
                  skip_invalid: bool = False) -> dict[str, Any]:
    """The figures of choice answers over ``instances`` (all a run covers): the choice metrics
    and the task's own (:meth:`~refbench.tasks.base.Task.run_metrics`), with the task's
    warnings. The runner and ``evaluate`` of a partial run score through this one function,
    so they print the same figures."""
    metrics = task.choice_metrics(instances, answers, answers_norm=answers_norm)
    for warning in task.run_warnings(instances):
        metrics.setdefault("warnings", []).append(warning)
    extra = task.run_metrics(data, predictions, instances, list(answers),
                             skip_invalid=skip_invalid)
    ci = {**metrics.get("ci95", {}), **extra.pop("ci95", {})}
    metrics.update(extra)
    if ci:
        metrics["ci95"] = ci
    return metrics


def evaluate_predictions(task: Task, gold: str | Path, preds: Sequence[str | Path], *,
                         systems: Sequence[str] = (), split: str = "test",
                         bootstrap: int = 1000, seed: int = 0,
                         reader_options: dict[str, Any] | None = None,
                         scorer_options: dict[str, Any] | None = None,
                         on_invalid: InvalidInstances | None = None,
                         allow_missing: bool = False,
                         name_of: NameOf | None = None) -> dict[str, Any]:
    """Score ``preds`` against ``gold`` for ``task``. ``on_invalid`` (``--skip-invalid``):
    malformed gold instances are skipped and recorded there. ``allow_missing``: a folder may
    lack some of its files' predictions (a warning). A refbench run over part of its data
    (``--limit``, a shard, lm-eval's ``--limit``) is scored over the instances it covers, as
    ``run`` scored it, with its coverage; a gold whose sha256 differs from the data the run
    recorded is warned about in one line. ``scorer_options``: the task's ``SCORER_OPTIONS``
    (checked), passed to its :meth:`~refbench.tasks.base.Task.evaluate`. Predictions made on
    other data are refused (:mod:`refbench.tasks.belonging`; ``name_of``: what to call a data
    file in that message, e.g. its release name)."""
    gold = Path(gold)
    paths = [Path(p) for p in preds]
    if not paths:
        raise UsageError("give at least one prediction file (--pred)")
    if gold.is_dir() and task.folder is not None:
        whole = task.folder.evaluate(
            task, gold, paths, systems=list(systems), split=split, bootstrap=bootstrap,
            seed=seed, on_invalid=on_invalid, allow_missing=allow_missing)
        if len(paths) == 1:
            check_counts(whole, gold, paths[0], name_of=name_of)
        return _with_coverage(whole)
    if len(systems) > 1:
        raise UsageError("several --system names are for several suite folders; one file "
                         "(or several runs of one system) takes one name")
    if len(paths) > 1:
        _one_system(task, gold, paths, named=bool(systems))
    _check_belongs(task, gold, paths, reader_options, name_of)
    run = run_metrics_beside(paths[0]) if len(paths) == 1 else None
    recorded = Result.from_json(run) if run and "task" in run and "n" in run else None
    if recorded is not None and recorded.is_partial and not scorer_options \
            and task.documents is None:
        result = _evaluate_covered(task, gold, paths[0], recorded, reader_options)
    else:
        result = task.evaluate(gold, paths, systems=list(systems), split=split,
                               bootstrap=bootstrap, seed=seed, reader_options=reader_options,
                               on_invalid=on_invalid, **dict(scorer_options or {}))
    if len(paths) == 1:  # formats read by the task itself (a folder run's --out) too
        check_counts(result, gold, paths[0], name_of=name_of)
    result["task"] = task.name
    result["gold"] = result["data"] = str(gold)
    result["split"] = task.infer_split(gold)
    result.setdefault("system", system_name(paths[0], *systems[:1]))
    _with_coverage(result)
    if recorded is not None and gold.is_file():
        line = gold_mismatch(recorded.data.sha256, sha256_file(gold), gold)
        if line:
            result.setdefault("warnings", []).append(line)
    return result


def _check_belongs(task: Task, gold: Path, paths: Sequence[Path],
                   reader_options: dict[str, Any] | None, name_of: NameOf | None) -> None:
    """Each answers file is matched with the gold's instances before it is scored
    (:func:`refbench.tasks.belonging.check_belongs`); a gold that cannot be read is left to
    the task's evaluate, which says why."""
    from refbench.tasks.answers import prediction_file, run_metadata

    if task.documents is not None or not gold.is_file():
        return
    for path in paths:
        try:
            pred = prediction_file(path)
        except RefbenchError:  # a folder run's --out: the task's evaluate reads it its way
            continue
        options = dict(reader_options or (run_metadata(path) or {}).get("reader_options") or {})
        try:
            instances = task.gold_instances(gold, options)
        except RefbenchError:
            return
        check_belongs(gold, pred, instances, name_of=name_of,
                      read=partial(_read_like, task, options))


def _read_like(task: Task, options: dict[str, Any], path: Path) -> list[ChoiceInstance]:
    return task.gold_instances(path, options)


def _with_coverage(result: dict[str, Any]) -> dict[str, Any]:
    """The result's coverage as the Result records it (missing predictions: fewer scored than
    the gold holds)."""
    if isinstance(result.get("n"), int) and "partial_by" not in result \
            and result.get("mode") != "suite":
        cov = coverage_of(result)
        result.update({"coverage_of": cov.of, "partial_by": list(cov.by)})
    return result


def _one_system(task: Task, gold: Path, paths: Sequence[Path], *, named: bool) -> None:
    """Runs are averaged only as runs of one system: never two models, and never two
    fingerprints unless ``--system`` names them as one system's runs (seeds)."""
    found = [s for s in (system_of(p) for p in paths) if s is not None]
    models = {s.model for s in found}
    keys = {s.key for s in found}
    if len(models) > 1 or (len(keys) > 1 and not named):
        listed = ", ".join(sorted({s.describe() for s in found}))
        raise UsageError(
            f"these predictions are of {len(keys)} systems ({listed}): the runs of different "
            f"systems are never averaged. Evaluate each on its own (refbench evaluate --task "
            f"{task.name} --gold {gold} --pred {paths[0]}), or compare them with refbench "
            f"report {' '.join(str(p) for p in paths)}")


def _evaluate_covered(task: Task, gold: Path, pred: Path, run: Result,
                      reader_options: dict[str, Any] | None) -> dict[str, Any]:
    """A partial run scored over the gold instances it covers, as the runner scored it."""
    from refbench.tasks.answers import prediction_file
    from refbench.tasks.choices import read_choices

    options = reader_options or run.details.get("reader_options") or {}
    instances = list(read_choices(gold, task=task, options=dict(options)))
    answers = read_choice_answers(pred, instances)
    keep = [k for k, i in enumerate(instances) if i.id not in answers.missing_ids]
    covered = [instances[k] for k in keep]
    if not covered:
        return task.evaluate(gold, [pred], reader_options=reader_options)
    norm = answers.answers_norm
    result = score_choices(task, gold, prediction_file(pred), covered,
                           [answers.answers[k] for k in keep],
                           answers_norm=[norm[k] for k in keep] if norm else None)
    by = run.coverage.by or (BY_MISSING,)
    cov = Coverage(len(covered), len(instances), by)
    result.update({"n": cov.n, "coverage_of": cov.of, "partial_by": list(cov.by),
                   "data_coverage": {"n": cov.n, "of": cov.of, "by": ", ".join(cov.by)},
                   "model": run.system.model, "model_fingerprint": run.system.fingerprint,
                   "system": run.system.name, "pred": str(pred), "n_missing": 0,
                   "n_extra": answers.n_extra})
    if answers.n_extra:
        result.setdefault("warnings", []).append(
            f"{answers.n_extra} predicted ids are not in the gold; ignored")
    return result

