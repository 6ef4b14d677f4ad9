"""Metrics of a choice run: accuracy (and acc_norm), slices, and each task's own scorer.

The definitions are the ones ``refbench evaluate`` uses (:mod:`refbench.tasks.metrics` and the
tasks' scorers, :meth:`refbench.tasks.base.Task.run_metrics`), applied to the model's outputs,
so evaluating a run's ``predictions.jsonl`` afterwards gives the same figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.types import ChoiceInstance
from refbench.models.base import ModelOutput
from refbench.tasks.base import get_task
from refbench.tasks.metrics import task_choice_metrics


def choice_metrics(task: str, instances: Sequence[ChoiceInstance],
                   outputs: Sequence[ModelOutput], *, bootstrap: int = 1000,
                   seed: int = 0) -> dict[str, Any]:
    norm = [o.extra["answer_norm"] for o in outputs] \
        if outputs and all("answer_norm" in o.extra for o in outputs) else None
    out = task_choice_metrics(task, instances, [o.answer for o in outputs],
                              answers_norm=norm, bootstrap=bootstrap, seed=seed)
    for warning in get_task(task).run_warnings(instances):
        out.setdefault("warnings", []).append(warning)
    return out


def task_metrics(task: str, data: Path, predictions: Path,
                 instances: Sequence[ChoiceInstance],
                 outputs: Sequence[ModelOutput], *, skip_invalid: bool = False
                 ) -> dict[str, Any]:
    """The task's own scorer on the run's predictions (KITMUS evaluator, GAP scorer, KnowRef
    decisions); intervals merge into the run's ``ci95``. ``skip_invalid``: the run skipped
    malformed instances; the scorer reads the gold again and skips the same ones (already
    reported by the run)."""
    return get_task(task).run_metrics(data, predictions, instances,
                                      [o.answer for o in outputs], skip_invalid=skip_invalid)
