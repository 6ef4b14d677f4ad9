"""Metrics of a choice run: accuracy (and acc_norm), slices, and each task's own scorer."""

from __future__ import annotations

import tempfile
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.types import ChoiceInstance
from refbench.models.base import ModelOutput

SLICE_KEYS = {
    "kitmus": ("pronoun", "answer_position", "n_entities", "variant"),
    "gap": ("pronoun",),
    "knowref": ("pronoun",),
    "winograd": ("source",),
    "altentities": ("domain", "sampling_method", "input_type"),
}


def _acc(pairs: Sequence[tuple[int | None, int | None]]) -> float | None:
    scored = [(a, g) for a, g in pairs if g is not None]
    return sum(a == g for a, g in scored) / len(scored) if scored else None


def choice_metrics(task: str, instances: Sequence[ChoiceInstance],
                   outputs: Sequence[ModelOutput]) -> dict[str, Any]:
    pairs = [(o.answer, i.gold) for i, o in zip(instances, outputs, strict=True)]
    out: dict[str, Any] = {
        "task": task, "n": len(instances),
        "n_with_gold": sum(g is not None for _, g in pairs),
        "n_no_answer": sum(a is None for a, _ in pairs),
        "accuracy": _acc(pairs),
    }
    if outputs and all("answer_norm" in o.extra for o in outputs):
        out["accuracy_norm"] = _acc([(o.extra["answer_norm"], i.gold)
                                     for i, o in zip(instances, outputs, strict=True)])
    slices: dict[str, dict[str, list[tuple[int | None, int | None]]]] = defaultdict(
        lambda: defaultdict(list))
    for inst, (a, g) in zip(instances, pairs, strict=True):
        for key in SLICE_KEYS.get(task, ()):
            value = inst.metadata.get(key)
            if value is not None:
                slices[key][str(value)].append((a, g))
    out["slices"] = {k: {v: {"n": len(p), "accuracy": _acc(p)} for v, p in sorted(vals.items())}
                     for k, vals in sorted(slices.items())}
    if task == "knowref":
        from refbench.tasks.knowref.read import absent_candidates_warning

        warning = absent_candidates_warning(instances)
        out["warnings"] = [warning] if warning else []
    truncated = sum(int(i.metadata.get("truncated", 0)) > 0 for i in instances)
    if task == "altentities":
        out["truncated_instances"] = truncated
    return out


def task_metrics(task: str, data: Path, predictions: Path,
                 instances: Sequence[ChoiceInstance],
                 outputs: Sequence[ModelOutput], *, skip_invalid: bool = False
                 ) -> dict[str, Any]:
    """The task's own scorer on the run's predictions (KITMUS evaluator, GAP scorer).
    ``skip_invalid``: the run skipped malformed instances; the scorer skips the same ones."""
    from refbench.core.invalid import InvalidInstances

    def again() -> InvalidInstances | None:
        return InvalidInstances() if skip_invalid else None

    if task == "kitmus":
        from refbench.tasks.kitmus.evaluate import evaluate_files

        r = evaluate_files(data, [predictions], bootstrap=1000, seed=0, on_invalid=again())
        keys = ("pronoun_accuracy", "antecedent_f1", "antecedent_precision",
                "antecedent_recall", "task_specific_accuracy", "decisions", "ci95",
                "random_baseline", "variant", "n_entities")
        return {k: r[k] for k in keys}
    if task == "gap":
        from refbench.tasks.gap.score import score_gap

        with tempfile.TemporaryDirectory() as d:
            system = Path(d) / "system.tsv"
            system.write_text("".join(
                f"{i.id}\t{'TRUE' if o.answer == 0 else 'FALSE'}\t"
                f"{'TRUE' if o.answer == 1 else 'FALSE'}\n"
                for i, o in zip(instances, outputs, strict=True)), encoding="utf-8")
            r = score_gap(data, system, on_invalid=again())
        return {k: r[k] for k in ("f1", "precision", "recall", "f1_masculine", "f1_feminine",
                                  "bias")}
    return {}
