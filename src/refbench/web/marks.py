"""Cutting a text into segments at every marked span's edges, so the templates can wrap each
segment in one element carrying all the marks that cover it.

This is how dataset text reaches the page: as plain strings in segments, escaped by the
template engine, never as markup built from the data. Nested or crossing spans (TNE has nested
NPs) simply give a segment several marks.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Segment:
    text: str
    marks: tuple[Any, ...]  # the marks covering this segment, outermost first

    @property
    def inner(self) -> Any:
        """The innermost mark (the one a click on this segment means), or None."""
        return self.marks[-1] if self.marks else None


def segment(text: str, spans: Sequence[tuple[int, int, Any]], *, start: int = 0,
            end: int | None = None) -> list[Segment]:
    """Segments of ``text[start:end]``; ``spans`` are ``(first_char, end_char, mark)``."""
    end = len(text) if end is None else end
    inside = [(max(a, start), min(b, end), m) for a, b, m in spans
              if a < end and b > start and a < b]
    cuts = sorted({start, end, *(a for a, _, _ in inside), *(b for _, b, _ in inside)})
    out = []
    for a, b in itertools.pairwise(cuts):
        covering = sorted((s for s in inside if s[0] <= a and s[1] >= b),
                          key=lambda s: (s[0], -s[1]))
        out.append(Segment(text[a:b], tuple(m for _, _, m in covering)))
    return out
