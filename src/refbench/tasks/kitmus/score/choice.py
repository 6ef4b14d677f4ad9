"""KITMUS gold (native JSONL, CoNLL, GAP TSV) as choice instances."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from refbench.core.invalid import InvalidInstances
from refbench.core.types import Candidate, ChoiceInstance
from refbench.tasks.kitmus.score.gold import GoldItem, pronoun_group, read_gold


def gold_to_choice(g: GoldItem) -> ChoiceInstance:
    context = g.text or ""
    cands = []
    for k, c in enumerate(g.candidates):
        off = g.candidate_offset(k)
        spans = ((off, off + len(c.name)),) if off is not None else ()
        cands.append(Candidate(c.name, char_spans=spans))
    variant = g.variant
    return ChoiceInstance(
        id=g.doc_id, task="kitmus", context=context, expression=g.pronoun_form,
        candidates=tuple(cands), gold=g.answer, expression_offset=g.pronoun_offset,
        metadata={"variant": variant, "n_entities": len(g.candidates),
                  "pronoun": pronoun_group(g.pronoun_form), "answer_position": g.answer},
    )


def read_kitmus_choices(path: str | Path, *, on_invalid: InvalidInstances | None = None,
                        ablate: str = "none") -> Iterator[ChoiceInstance]:
    """``ablate``: remove knowledge sentences (:mod:`refbench.tasks.kitmus.score.ablate`)."""
    for g in read_gold(path, on_invalid=on_invalid, ablate=ablate):
        yield gold_to_choice(g)
