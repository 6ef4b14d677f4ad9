"""Baselines: seeded random, first, last, and nearest candidate before the expression."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any

from refbench.core.options import Option
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, argmax


class RandomModel(ChoiceModel):
    """Uniform choice, seeded per instance (so a subset gives the same answers)."""

    name = "random"
    OPTIONS = (Option("seed", int, 0, "random seed"),)

    def __init__(self, argument: str | None = None, **options: Any) -> None:
        super().__init__(argument, **options)
        self.seed = int(self.option("seed"))

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        out = []
        for inst in batch:
            digest = hashlib.sha256(f"{self.seed}:{inst.id}".encode()).digest()
            rng = random.Random(digest)
            scores = tuple(rng.random() for _ in inst.candidates)
            out.append(ModelOutput(argmax(scores), scores))
        return out


def _first_offset(inst: ChoiceInstance, k: int) -> float:
    spans = inst.candidates[k].char_spans
    return float(spans[0][0]) if spans else float("inf")


def _rank_scores(order: Sequence[int]) -> tuple[float, ...]:
    """Scores that make ``order[0]`` best, ``order[1]`` next, and so on."""
    n = len(order)
    return tuple(float(n - order.index(k)) for k in range(n))


class FirstModel(ChoiceModel):
    """The candidate mentioned first in the context (candidate order when none is located)."""

    name = "first"

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        out = []
        for inst in batch:
            pos = [_first_offset(inst, k) for k in range(len(inst.candidates))]
            scores = _rank_scores(sorted(range(len(pos)), key=lambda k: (pos[k], k)))
            out.append(ModelOutput(argmax(scores), scores))
        return out


class LastModel(ChoiceModel):
    """The candidate whose first mention comes last (unlocated candidates rank lowest)."""

    name = "last"

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        out = []
        for inst in batch:
            pos = [_first_offset(inst, k) for k in range(len(inst.candidates))]
            pos = [p if p != float("inf") else -1.0 for p in pos]
            scores = _rank_scores(sorted(range(len(pos)), key=lambda k: (-pos[k], k)))
            out.append(ModelOutput(argmax(scores), scores))
        return out


class NearestModel(ChoiceModel):
    """The candidate with a mention closest before the expression."""

    name = "nearest"

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        out = []
        for inst in batch:
            anchor = inst.expression_offset if inst.expression_offset is not None \
                else len(inst.context)
            scores = []
            for c in inst.candidates:
                before = [a for a, _ in c.char_spans if a < anchor]
                scores.append(-float(anchor - max(before)) if before else float("-inf"))
            answer = argmax(scores) if any(s != float("-inf") for s in scores) else None
            out.append(ModelOutput(answer, tuple(s if s != float("-inf") else -1e9
                                                 for s in scores)))
        return out
