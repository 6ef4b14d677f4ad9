"""Precision / recall / F1 from additive counts (spaCy's PRFScore idea).

Counts add up across instances, files and slices; ratios are computed only at the end, so a
slice's figure is never an average of averages. Empty denominators give 0.0, like the official
KITMUS and GAP scorers.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class PRF:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def add(self, gold: bool, pred: bool) -> None:
        if gold and pred:
            self.tp += 1
        elif pred:
            self.fp += 1
        elif gold:
            self.fn += 1
        else:
            self.tn += 1

    def __iadd__(self, other: PRF) -> PRF:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.tn += other.tn
        return self

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self, prefix: str = "") -> dict[str, float | int]:
        return {
            f"{prefix}precision": self.precision,
            f"{prefix}recall": self.recall,
            f"{prefix}f1": self.f1,
            f"{prefix}tp": self.tp,
            f"{prefix}fp": self.fp,
            f"{prefix}fn": self.fn,
            f"{prefix}tn": self.tn,
        }


def f1_from_counts(tp: float, fp: float, fn: float) -> float:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0
