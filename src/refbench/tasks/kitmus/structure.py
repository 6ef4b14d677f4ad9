"""Where the parts of a KITMUS instance are, found from its structure alone, never from spelling.

A KITMUS document is a knowledge text (one entity-specific sentence per entity, each mentioning
that one entity, plus background-knowledge sentences mentioning none) followed by a task text:
the meet sentence (every entity named), an optional noise sentence (no mention) and the situation
sentence, whose one annotated mention is the pronoun. So:

- the task text starts at the first sentence whose mentions belong to two or more clusters;
- the pronoun is the one mention after that sentence;
- the candidates are the task text's other mentions, in textual order.

The official name pool holds census surnames that spell pronouns (``He``, ``Her``, ``You``) and
the release uses them as entities ("At the market, Sandler, He, and Kuhns bumped into each
other."), so a token's spelling or POS tag can never decide what is a pronoun. Every reader, the
validator, the converters and the scorer locate the parts with :func:`locate`.
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

# One annotated mention: (sentence index, first token, last token (inclusive), cluster id).
MentionRef = tuple[int, int, int, Hashable]


class StructureError(ValueError):
    """The mentions do not have the shape of a KITMUS instance (the message says how)."""


@dataclass(frozen=True)
class Located:
    meet_sentence: int
    pronoun: MentionRef
    candidates: tuple[MentionRef, ...]  # the task text's other mentions, in textual order

    @property
    def answer_clusters(self) -> list[Hashable]:
        """Clusters of the candidates that share the pronoun's cluster."""
        return [m[3] for m in self.candidates if m[3] == self.pronoun[3]]


def meet_sentence(mentions: Sequence[MentionRef]) -> int | None:
    """The first sentence whose mentions belong to two or more clusters (None: no task text,
    as in the knowledge-text-only view)."""
    clusters: dict[int, set[Hashable]] = {}
    for sentence, _, _, cluster in mentions:
        clusters.setdefault(sentence, set()).add(cluster)
    return next((s for s in sorted(clusters) if len(clusters[s]) >= 2), None)


def locate(mentions: Sequence[MentionRef]) -> Located:
    """The meet sentence, the pronoun and the candidates of one instance (see the module doc).

    Raises :class:`StructureError` when there is no task text or the situation sentence does not
    hold exactly one mention.
    """
    meet = meet_sentence(mentions)
    if meet is None:
        raise StructureError("no sentence mentions two entities: cannot find the task text")
    ordered = sorted((m for m in mentions if m[0] >= meet), key=lambda m: m[:3])
    after = [m for m in ordered if m[0] > meet]
    if len(after) != 1:
        raise StructureError(
            f"expected exactly one annotated mention after the meet sentence (the situation "
            f"sentence's pronoun), found {len(after)}")
    pronoun = after[0]
    return Located(meet, pronoun, tuple(m for m in ordered if m is not pronoun))


def locate_or_none(mentions: Sequence[MentionRef]) -> Located | None:
    """:func:`locate`, or None where there is no task text (knowledge-text-only view)."""
    if meet_sentence(mentions) is None:
        return None
    return locate(mentions)


def sentence_of(starts: Sequence[int], token: int) -> int:
    """The sentence holding a document-level token index, given each sentence's first index."""
    return bisect.bisect_right(starts, token) - 1
