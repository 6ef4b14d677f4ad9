"""``refbench evaluate`` for every registered task: gold plus predictions in, one result out.

Whatever ``refbench run`` writes is accepted (a run folder, its ``predictions.jsonl``, a whole
suite run folder), and so are each task's own prediction formats: each task scores through its
:meth:`~refbench.tasks.base.Task.evaluate` (or
:meth:`~refbench.tasks.base.Task.evaluate_directory` for a folder of gold). Choice tasks share
one definition of accuracy and its slices with the runner (:mod:`refbench.tasks.metrics`), so a
run scored again here gives the same figures. Every result names its system, data and split.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.invalid import InvalidInstances
from refbench.tasks.answers import prediction_file, read_choice_answers, run_metadata, system_name
from refbench.tasks.base import Task, get_task
from refbench.tasks.metrics import task_choice_metrics


def one_prediction(preds: Sequence[Path], task: str, extra: str = "") -> Path:
    """The one prediction file a task scores at a time (UsageError for several)."""
    if len(preds) != 1:
        raise UsageError(f"--task {task} scores one prediction file at a time{extra}")
    return preds[0]


def gold_choices(task: Task, gold: Path, options: dict[str, Any] | None,
                 on_invalid: InvalidInstances | None) -> list[Any]:
    """The gold file's choice instances; RefbenchError when it holds none."""
    instances = list(task.read_choices(gold, options=dict(options or {}),
                                       on_invalid=on_invalid))
    if not instances:
        skipped = " (every instance was skipped as invalid)" if on_invalid else ""
        raise RefbenchError(f"the gold holds no instances{skipped}: nothing to score", path=gold)
    return instances


def evaluate_choice_task(task: str, gold: Path, pred: Path, *,
                         reader_options: dict[str, Any] | None = None, bootstrap: int = 1000,
                         seed: int = 0, on_invalid: InvalidInstances | None = None
                         ) -> dict[str, Any]:
    """Any choice task without its own scorer (Winograd, AltEntities): accuracy, interval
    and slices of an answers file or run folder against the gold file."""
    options = dict(reader_options or {})
    meta = run_metadata(pred) or {}
    for key, value in (meta.get("reader_options") or {}).items():
        options.setdefault(key, value)  # read the gold the way the run read it
    instances = gold_choices(get_task(task), gold, options, on_invalid)
    read = read_choice_answers(pred, instances)
    result = task_choice_metrics(task, instances, read.answers, answers_norm=read.answers_norm,
                                 bootstrap=bootstrap, seed=seed)
    result.update({"n_missing": read.n_missing, "n_extra": read.n_extra,
                   "warnings": read.warnings, "pred": str(prediction_file(pred))})
    return result


def evaluate_predictions(task: str, gold: str | Path, preds: Sequence[str | Path], *,
                         systems: Sequence[str] = (), split: str = "test",
                         bootstrap: int = 1000, seed: int = 0,
                         switched_pred: str | Path | None = None,
                         switched_gold: str | Path | None = None,
                         reader_options: dict[str, Any] | None = None,
                         on_invalid: InvalidInstances | None = None,
                         allow_missing: bool = False) -> dict[str, Any]:
    """Score ``preds`` against ``gold`` for ``task`` (a registered task name). ``on_invalid``
    (``--skip-invalid``): malformed gold instances are skipped and recorded there.
    ``allow_missing``: a suite folder may lack some subtasks' predictions (a warning)."""
    gold = Path(gold)
    paths = [Path(p) for p in preds]
    if not paths:
        raise UsageError("give at least one prediction file (--pred)")
    t = get_task(task)
    if gold.is_dir() and type(t).evaluate_directory is not Task.evaluate_directory:
        return t.evaluate_directory(gold, paths, systems=list(systems), split=split,
                                    bootstrap=bootstrap, seed=seed, on_invalid=on_invalid,
                                    allow_missing=allow_missing)
    if len(systems) > 1:
        raise UsageError("several --system names are for several suite folders; one file "
                         "(or several runs of one system) takes one name")
    options: dict[str, Any] = {}
    if switched_pred is not None:
        options["switched_pred"] = switched_pred
    if switched_gold is not None:
        options["switched_gold"] = switched_gold
    result = t.evaluate(gold, paths, systems=list(systems), split=split, bootstrap=bootstrap,
                        seed=seed, reader_options=reader_options, on_invalid=on_invalid,
                        **options)
    result["task"] = t.name
    result["gold"] = result["data"] = str(gold)
    result["split"] = t.infer_split(gold)
    result.setdefault("system", system_name(paths[0], *systems[:1]))
    return result
