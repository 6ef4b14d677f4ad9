"""Metrics of a choice run: accuracy (and acc_norm), slices, and each task's own scorer.

The definitions are the ones ``refbench evaluate`` uses (:mod:`refbench.metrics.choice` and the
tasks' scorers), applied to the model's outputs, so evaluating a run's ``predictions.jsonl``
afterwards gives the same figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.types import ChoiceInstance
from refbench.metrics import choice
from refbench.models.base import ModelOutput

SLICE_KEYS = choice.SLICE_KEYS


def choice_metrics(task: str, instances: Sequence[ChoiceInstance],
                   outputs: Sequence[ModelOutput], *, bootstrap: int = 1000,
                   seed: int = 0) -> dict[str, Any]:
    norm = [o.extra["answer_norm"] for o in outputs] \
        if outputs and all("answer_norm" in o.extra for o in outputs) else None
    return choice.choice_metrics(task, instances, [o.answer for o in outputs],
                                 answers_norm=norm, bootstrap=bootstrap, seed=seed)


def task_metrics(task: str, data: Path, predictions: Path,
                 instances: Sequence[ChoiceInstance],
                 outputs: Sequence[ModelOutput]) -> dict[str, Any]:
    """The task's own scorer on the run's predictions (KITMUS evaluator, GAP scorer, KnowRef
    decisions); intervals merge into the run's ``ci95``."""
    if task == "kitmus":
        from refbench.tasks.kitmus.evaluate import evaluate_files

        r = evaluate_files(data, [predictions], bootstrap=1000, seed=0)
        keys = ("pronoun_accuracy", "antecedent_f1", "antecedent_precision",
                "antecedent_recall", "task_specific_accuracy", "decisions", "ci95",
                "random_baseline", "variant", "n_entities")
        return {k: r[k] for k in keys}
    if task == "gap":
        from refbench.tasks.gap.evaluate import gap_answer_scores

        return gap_answer_scores(data, instances, [o.answer for o in outputs],
                                 pred=str(predictions))
    if task == "knowref":
        from refbench.tasks.knowref.metrics import evaluate_knowref

        r = evaluate_knowref(data, predictions)
        return {k: r[k] for k in ("decisions", "task_specific_accuracy", "coverage")}
    return {}
