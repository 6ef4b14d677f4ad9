"""KITMUS scoring: antecedent P/R/F1, pronoun accuracy, decision breakdown, slices, intervals.

Definitions (KITMUS section 5.3 and the official evaluator):
- antecedent classification: one binary decision per candidate mention of the task text,
  "linked to the pronoun"; precision, recall and F1 over all decisions (micro).
- pronoun accuracy: an instance is correct iff the linked set is exactly {correct candidate}.
- decision breakdown (KnowRef): several candidates linked / none / one wrong / one right;
  task-specific accuracy = right / (right + wrong).
A missing prediction links nothing (so it is wrong) and is counted in ``n_missing``.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.invalid import InvalidInstances
from refbench.formats.answers import no_overlap_error
from refbench.metrics.bootstrap import accuracy_stat, bootstrap_cis, f1_stat
from refbench.metrics.prf import PRF
from refbench.tasks.kitmus.score.gold import GoldItem, pronoun_group, read_gold
from refbench.tasks.kitmus.score.predictions import (
    PredictionFile,
    linked_candidates,
    points_elsewhere,
    read_predictions,
)

HEADLINE = ("antecedent_f1", "antecedent_precision", "antecedent_recall", "pronoun_accuracy",
            "task_specific_accuracy")


class _Tally:
    """Additive per-slice counts."""

    def __init__(self) -> None:
        self.prf = PRF()
        self.n = 0
        self.correct = 0
        self.decisions = {"multiple": 0, "none": 0, "incorrect": 0, "correct": 0}

    def add(self, gold: GoldItem, linked: set[int]) -> None:
        for k in range(len(gold.candidates)):
            self.prf.add(k == gold.answer, k in linked)
        self.n += 1
        ok = linked == {gold.answer}
        self.correct += ok
        key = ("none" if not linked else "multiple" if len(linked) > 1
               else "correct" if ok else "incorrect")
        self.decisions[key] += 1

    def summary(self) -> dict[str, Any]:
        decided = self.decisions["correct"] + self.decisions["incorrect"]
        return {
            "n": self.n,
            "antecedent_precision": self.prf.precision,
            "antecedent_recall": self.prf.recall,
            "antecedent_f1": self.prf.f1,
            "pronoun_accuracy": self.correct / self.n if self.n else 0.0,
            "task_specific_accuracy": self.decisions["correct"] / decided if decided else None,
            "decisions": dict(self.decisions),
            "counts": {"tp": self.prf.tp, "fp": self.prf.fp, "fn": self.prf.fn,
                       "tn": self.prf.tn},
        }


def score(gold: Sequence[GoldItem], preds: PredictionFile, *, bootstrap: int = 1000,
          seed: int = 0, columns: dict[str, list[int]] | None = None) -> dict[str, Any]:
    """Score one prediction file against gold items. ``columns``, when given, receives the
    per-instance counts (correct, tp, fp, fn) in gold order, for intervals over several runs."""
    overall = _Tally()
    slices: dict[str, dict[str, _Tally]] = defaultdict(lambda: defaultdict(_Tally))
    cols: dict[str, list[int]] = {"correct": [], "tp": [], "fp": [], "fn": []}
    if not gold:
        raise RefbenchError("the gold holds no instances: nothing to score")
    gold_keys = {item.key for item in gold}
    if not any(k in gold_keys for k in preds.items):
        raise no_overlap_error(preds.path, list(preds.items), [g.doc_id for g in gold])
    missing: list[str] = []
    elsewhere = 0
    for item in gold:
        pred = preds.items.get(item.key)
        if pred is None:
            missing.append(item.doc_id)
            linked: set[int] = set()
        else:
            elsewhere += points_elsewhere(item, pred)
            linked = linked_candidates(item, pred)
        overall.add(item, linked)
        slices["pronoun"][pronoun_group(item.pronoun_form)].add(item, linked)
        slices["answer_position"][str(item.answer)].add(item, linked)
        slices["entities"][str(len(item.candidates))].add(item, linked)
        tp = int(item.answer in linked)
        cols["correct"].append(int(linked == {item.answer}))
        cols["tp"].append(tp)
        cols["fp"].append(len(linked) - tp)
        cols["fn"].append(1 - tp)
    if columns is not None:
        columns.update(cols)
    extra = sorted(k for k in preds.items if k not in gold_keys)
    cis = bootstrap_cis(cols, {"pronoun_accuracy": accuracy_stat, "antecedent_f1": f1_stat},
                        resamples=bootstrap, seed=seed)
    result = overall.summary()
    random_acc = chance_accuracy(gold)
    result.update({
        "n_missing": len(missing),
        "n_extra": len(extra),
        "missing_ids": missing[:20],
        "extra_ids": extra[:20],
        "ci95": {**cis, "resamples": bootstrap, "seed": seed},
        "random_baseline": {"pronoun_accuracy": random_acc, "antecedent_f1": random_acc},
        "kitmus_slices": {name: {k: _slim(t.summary()) for k, t in sorted(group.items())}
                          for name, group in sorted(slices.items())},
        "prediction_format": preds.kind,
        "warnings": list(preds.warnings),
    })
    if missing:
        result["warnings"].append(f"{len(missing)} gold instances have no prediction; counted "
                                  "as wrong")
    if elsewhere:
        result["warnings"].append(f"{elsewhere} GAP rows give a pronoun offset that is not the "
                                  "gold pronoun's (predictions for another view?): no links")
    if extra:
        result["warnings"].append(f"{len(extra)} predicted ids are not in the gold; ignored")
    return result


def chance_accuracy(gold: Sequence[GoldItem]) -> float:
    """Pronoun accuracy of a uniform choice among each instance's candidates (the random
    baseline, a suite's chance row)."""
    return statistics.fmean(1 / len(g.candidates) for g in gold) if gold else 0.0


def _slim(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: summary[k] for k in ("n", "pronoun_accuracy", "antecedent_f1",
                                    "task_specific_accuracy")}


def aggregate_runs(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Mean and sample standard deviation (n-1) of the headline metrics over runs."""
    out: dict[str, Any] = {"n_runs": len(runs)}
    for metric in HEADLINE:
        values = [r[metric] for r in runs if r.get(metric) is not None]
        if not values:
            out[metric] = None
            continue
        out[metric] = statistics.fmean(values)
        out[f"{metric}_std"] = statistics.stdev(values) if len(values) > 1 else 0.0
    return out


def evaluate_files(gold_path: str | Path, pred_paths: Iterable[str | Path], *,
                   bootstrap: int = 1000, seed: int = 0, system: str | None = None,
                   on_invalid: InvalidInstances | None = None,
                   covered_only: bool = False) -> dict[str, Any]:
    """Score one or several prediction files (runs) against one gold file.
    ``on_invalid`` (``--skip-invalid``): skip and record malformed gold instances.
    ``covered_only``: score over the gold instances the (one) prediction file covers, as a
    partial run (``--limit``, a shard, lm-eval's ``--limit``) is scored."""
    gold = list(read_gold(gold_path, on_invalid=on_invalid))
    if covered_only and gold:
        paths = list(pred_paths)
        keys = {k for p in paths for k in read_predictions(p).items}
        gold = [g for g in gold if g.key in keys] or gold
        pred_paths = paths
    if not gold:
        raise RefbenchError("the gold holds no instances: nothing to score", path=gold_path)
    pred_paths_list = list(pred_paths)
    runs = []
    for p in pred_paths_list:
        result = score(gold, read_predictions(p), bootstrap=bootstrap, seed=seed)
        result["pred"] = str(p)
        runs.append(result)
    if len(runs) == 1:
        out = dict(runs[0])
    else:
        out = {**aggregate_runs(runs), "n": runs[0]["n"],
               "n_missing": max(r["n_missing"] for r in runs),
               "random_baseline": runs[0]["random_baseline"],
               "warnings": [w for r in runs for w in r["warnings"]], "runs": runs}
    out["task"] = "kitmus"
    out["gold"] = str(gold_path)
    variants = {g.variant for g in gold}
    sizes = {len(g.candidates) for g in gold}
    out["variant"] = _canonical(variants.pop()) if len(variants) == 1 else None
    out["n_entities"] = sizes.pop() if len(sizes) == 1 else None
    out["system"] = system or Path(str(next(iter(pred_paths_list)))).name.split(".")[0]
    return out


def _canonical(variant: str | None) -> str | None:
    if variant is None:
        return None
    from refbench.tasks.kitmus.registries import canonical_variant

    return canonical_variant(variant)
