"""The shared choice metrics of one registered task: accuracy, interval, the task's slices and
extras (:meth:`~refbench.tasks.base.Task.slices`, :meth:`~refbench.tasks.base.Task.choice_extras`).
The runner and ``evaluate`` both call this, so a run scored again gives the same figures."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from refbench.core.types import ChoiceInstance
from refbench.metrics.choice import choice_metrics
from refbench.tasks.base import get_task


def task_choice_metrics(task: str, instances: Sequence[ChoiceInstance],
                        answers: Sequence[int | None], *,
                        answers_norm: Sequence[int | None] | None = None,
                        bootstrap: int = 1000, seed: int = 0) -> dict[str, Any]:
    t = get_task(task)
    out = choice_metrics(t.name, instances, answers, answers_norm=answers_norm,
                         bootstrap=bootstrap, seed=seed, slices=t.slices)
    out.update(t.choice_extras(instances))
    return out
