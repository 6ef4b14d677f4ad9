"""Accuracy of choice answers, its slices and a bootstrap interval.

One definition shared by the runner (scoring a model's outputs as it runs) and ``evaluate``
(scoring a predictions file afterwards), so both print the same figures. Accuracy counts only
instances with a gold answer; an instance without an answer (abstention, missing prediction) is
wrong. All figures are fractions in [0, 1].
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from refbench.core.types import ChoiceInstance
from refbench.metrics.bootstrap import accuracy_stat, bootstrap_cis

Pair = tuple[int | None, int | None]


def accuracy(pairs: Sequence[Pair]) -> float | None:
    """Share of (answer, gold) pairs with gold where the answer is the gold; None without gold."""
    scored = [(a, g) for a, g in pairs if g is not None]
    return sum(a == g for a, g in scored) / len(scored) if scored else None


def choice_metrics(task: str, instances: Sequence[ChoiceInstance],
                   answers: Sequence[int | None], *,
                   answers_norm: Sequence[int | None] | None = None,
                   bootstrap: int = 1000, seed: int = 0,
                   slices: Callable[[ChoiceInstance], dict[str, Any]] | None = None
                   ) -> dict[str, Any]:
    """Accuracy (and length-normalised accuracy), a seeded 95% interval, and slices: accuracy
    by each value ``slices(instance)`` gives (the task's
    :meth:`~refbench.tasks.base.Task.slices`; ``None`` values are left out). ``task`` is only
    recorded; :meth:`refbench.tasks.base.Task.choice_metrics` fills in the task's hooks."""
    pairs = [(a, i.gold) for i, a in zip(instances, answers, strict=True)]
    out: dict[str, Any] = {
        "task": task, "n": len(instances),
        "n_with_gold": sum(g is not None for _, g in pairs),
        "n_no_answer": sum(a is None for a, _ in pairs),
        "accuracy": accuracy(pairs),
    }
    if answers_norm is not None:
        out["accuracy_norm"] = accuracy([(a, i.gold) for i, a in
                                         zip(instances, answers_norm, strict=True)])
    correct = [int(a == g) for a, g in pairs if g is not None]
    if correct and bootstrap > 0:
        lo, hi = bootstrap_cis({"correct": correct}, {"accuracy": accuracy_stat},
                               resamples=bootstrap, seed=seed)["accuracy"]
        out["ci95"] = {"accuracy": [lo, hi], "resamples": bootstrap, "seed": seed}
    by: dict[str, dict[str, list[Pair]]] = defaultdict(lambda: defaultdict(list))
    for inst, pair in zip(instances, pairs, strict=True):
        for key, value in (slices(inst) if slices else {}).items():
            if value is not None:
                by[key][str(value)].append(pair)
    # a slice's n is the instances its accuracy is over: those with gold (GAP has some without)
    out["slices"] = {k: {v: {"n": sum(g is not None for _, g in p), "accuracy": accuracy(p)}
                         for v, p in sorted(vals.items())}
                     for k, vals in sorted(by.items())}
    return out
