"""``refbench evaluate`` for every registered task: gold plus predictions in, one result out.

Whatever ``refbench run`` writes is accepted (a run folder, its ``predictions.jsonl``, a whole
suite run folder), and so are each task's own prediction formats. Choice tasks share one
definition of accuracy and its slices with the runner (:mod:`refbench.metrics.choice`), so a run
scored again here gives the same figures. Every result names its system, data and split.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.invalid import InvalidInstances
from refbench.metrics.choice import choice_metrics
from refbench.tasks.answers import prediction_file, read_choice_answers, run_metadata, system_name
from refbench.tasks.choices import infer_split, read_choices


def _one(preds: Sequence[Path], task: str, extra: str = "") -> Path:
    if len(preds) != 1:
        raise UsageError(f"--task {task} scores one prediction file at a time{extra}")
    return preds[0]


def _gold_choices(task: str, gold: Path, options: dict[str, Any] | None,
                  on_invalid: InvalidInstances | None) -> list[Any]:
    instances = list(read_choices(gold, task=task, options=options, on_invalid=on_invalid))
    if not instances:
        skipped = " (every instance was skipped as invalid)" if on_invalid else ""
        raise RefbenchError(f"the gold holds no instances{skipped}: nothing to score", path=gold)
    return instances


def evaluate_choice_task(task: str, gold: Path, pred: Path, *,
                         reader_options: dict[str, Any] | None = None, bootstrap: int = 1000,
                         seed: int = 0, on_invalid: InvalidInstances | None = None
                         ) -> dict[str, Any]:
    """Winograd, AltEntities (and any choice task without its own scorer): accuracy, interval
    and slices of an answers file or run folder against the gold file."""
    options = dict(reader_options or {})
    meta = run_metadata(pred) or {}
    for key, value in (meta.get("reader_options") or {}).items():
        options.setdefault(key, value)  # read the gold the way the run read it
    instances = _gold_choices(task, gold, options, on_invalid)
    read = read_choice_answers(pred, instances)
    result = choice_metrics(task, instances, read.answers, answers_norm=read.answers_norm,
                            bootstrap=bootstrap, seed=seed)
    result.update({"n_missing": read.n_missing, "n_extra": read.n_extra,
                   "warnings": read.warnings, "pred": str(prediction_file(pred))})
    return result


def _knowref(gold: Path, pred: Path, *, switched_pred: Path | None,
             switched_gold: Path | None, bootstrap: int, seed: int,
             on_invalid: InvalidInstances | None) -> dict[str, Any]:
    from refbench.tasks.knowref.metrics import base_id, evaluate_knowref, read_answers

    file = prediction_file(pred)
    instances = _gold_choices("knowref", gold, None, on_invalid)
    links = read_answers(file, instances)
    answers = [next(iter(s)) if len(s := links.get(base_id(i.id), set())) == 1 else None
               for i in instances]
    result = choice_metrics("knowref", instances, answers, bootstrap=bootstrap, seed=seed)
    # evaluate_knowref reads the gold again: the same instances are skipped, reported once.
    again = InvalidInstances() if on_invalid is not None else None
    result.update(evaluate_knowref(gold, file, switched_pred and prediction_file(switched_pred),
                                   switched_gold, on_invalid=again))
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
    result: dict[str, Any]
    if task == "kitmus" and gold.is_dir():
        from refbench.tasks.kitmus.suite_eval import evaluate_suite

        return evaluate_suite(gold, paths, names=list(systems), split=split,
                              bootstrap=bootstrap, seed=seed, on_invalid=on_invalid,
                              allow_missing=allow_missing)
    if len(systems) > 1:
        raise UsageError("several --system names are for several suite folders; one file "
                         "(or several runs of one system) takes one name")
    if task == "kitmus":
        from refbench.tasks.kitmus.evaluate import evaluate_files

        result = evaluate_files(gold, [prediction_file(p) for p in paths], bootstrap=bootstrap,
                                seed=seed, system=system_name(paths[0], *systems[:1]),
                                on_invalid=on_invalid)
    elif task == "tne":
        from refbench.tasks.tne.metrics import evaluate_tne
        from refbench.tasks.tne.predictions import read_predictions
        from refbench.tasks.tne.read import read_documents

        pred = _one(paths, task)
        docs = read_documents(gold, on_invalid=on_invalid)
        skipped = {str(s["id"]) for s in on_invalid.skipped} if on_invalid else set()
        result = evaluate_tne(docs, read_predictions(pred, {d.id: d for d in docs},
                                                     skipped=skipped))
        result.update({"task": "tne", "pred": str(pred)})
    elif task == "gap":
        from refbench.tasks.gap.evaluate import evaluate_gap

        result = evaluate_gap(gold, _one(paths, task), bootstrap=bootstrap, seed=seed,
                              on_invalid=on_invalid)
    elif task == "knowref":
        result = _knowref(gold, _one(paths, task, " (plus --switched-pred)"),
                          switched_pred=Path(switched_pred) if switched_pred else None,
                          switched_gold=Path(switched_gold) if switched_gold else None,
                          bootstrap=bootstrap, seed=seed, on_invalid=on_invalid)
    else:
        result = evaluate_choice_task(task, gold, _one(paths, task),
                                      reader_options=reader_options, bootstrap=bootstrap,
                                      seed=seed, on_invalid=on_invalid)
    result["task"] = task
    result["gold"] = result["data"] = str(gold)
    result["split"] = infer_split(gold)
    result.setdefault("system", system_name(paths[0], *systems[:1]))
    return result
