"""GAP TSV rows as choice instances (A or B; gold None when neither or both are coreferent)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from refbench.core.invalid import InvalidInstances
from refbench.core.types import Candidate, ChoiceInstance
from refbench.formats.gap_tsv import read_gap
from refbench.tasks.gap.score import gender_of


def read_gap_choices(path: str | Path, *, on_invalid: InvalidInstances | None = None
                     ) -> Iterator[ChoiceInstance]:
    for row in read_gap(path, on_invalid=on_invalid):
        gold = 0 if row.a_coref and not row.b_coref else 1 if row.b_coref and not row.a_coref \
            else None
        yield ChoiceInstance(
            id=row.id, task="gap", context=row.text, expression=row.pronoun,
            candidates=(Candidate(row.a, char_spans=((row.a_offset, row.a_offset + len(row.a)),)),
                        Candidate(row.b, char_spans=((row.b_offset, row.b_offset + len(row.b)),))),
            gold=gold, expression_offset=row.pronoun_offset,
            metadata={"pronoun": gender_of(row.pronoun), "url": row.url},
        )
