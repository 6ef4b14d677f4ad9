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
    """One choice: its surface text, where it occurs in the context, and any description."""

    text: str
    mentions: tuple[Mention, ...] = ()  # token spans, where the source has tokens
    char_spans: tuple[tuple[int, int], ...] = ()  # [start, end) in ChoiceInstance.context
    description: str | None = None


@dataclass(frozen=True)
class ChoiceInstance:
    """A referring expression to resolve against candidates, with the gold index (or None).

    ``expression_offset`` is the expression's character offset in ``context`` when it occurs
    there (a pronoun, a Winograd blank); free-text expressions (AltEntities) have None.
    """

    id: str
    task: str
    context: str
    expression: str
    candidates: tuple[Candidate, ...]
    gold: int | None
    expression_mention: Mention | None = None
    expression_offset: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def with_expression_replaced(self, k: int) -> str:
        """The context with the expression replaced by candidate ``k`` (pronoun tasks)."""
        if self.expression_offset is None:
            raise ValueError(f"{self.id}: the expression does not occur in the context")
        start = self.expression_offset
        text = self.candidates[k].text
        if start == 0 or self.context[max(0, start - 2):start].rstrip().endswith((".", "!", "?")):
            text = text[:1].upper() + text[1:]
        if self.expression.lower() in ("his", "their", "its", "theirs", "hers", "eir", "zir"):
            text += "'s"  # a possessive pronoun becomes a possessive name
        return self.context[:start] + text + self.context[start + len(self.expression):]

    def fingerprint(self) -> str:
        """A hash of everything a model may read, for the prediction cache."""
        import hashlib
        import json

        payload = json.dumps([self.context, self.expression, self.expression_offset,
                              [(c.text, c.description, c.char_spans) for c in self.candidates]],
                             ensure_ascii=False)
        return hashlib.sha256(payload.encode()).hexdigest()[:32]
