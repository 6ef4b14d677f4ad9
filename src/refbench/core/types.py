"""Typed shapes shared by every task.

``Mention`` is a token span inside a sentence (end inclusive, as in CoNLL and e2e-coref).
``ChoiceInstance`` is the one shape every choice task reads into: a context, a referring
expression, candidates and the gold index, so any choice model runs on any of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, order=True)
class Mention:
    sentence: int
    start: int
    end: int  # inclusive

    def to_json(self) -> dict[str, int]:
        return {"sentence": self.sentence, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class Candidate:
    text: str
    mentions: tuple[Mention, ...] = ()
    description: str | None = None


@dataclass(frozen=True)
class ChoiceInstance:
    id: str
    task: str
    context: str
    expression: str
    candidates: tuple[Candidate, ...]
    gold: int | None
    expression_mention: Mention | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
