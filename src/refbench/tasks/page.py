"""What an instance page shows, as plain data built from a record's payload: text cut into
segments at every marked span's edges (each segment carries the marks covering it, so a template
wraps it in one element), candidates with their colours. Shared by the tasks' page views (their
web capability's :meth:`~refbench.tasks.capabilities.WebView.context`); templates only lay this
out, and nothing here produces markup: dataset text reaches the page as plain strings, escaped
by the template engine. Nested or crossing spans (TNE has nested NPs) simply give a segment
several marks.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

ENTITY_COLOURS = 8
# Chains: 12 colours, then the same colours again striped, dotted and barred, so 48 chains of a
# document never share a look (the TNE release has at most 13 chains of two or more NPs in a
# document: 3 of its 5,497 documents have more than 12).
CHAIN_COLOURS = 12
CHAIN_PATTERNS = 4


def chain_look(k: int, colours: int, patterns: int) -> tuple[int, int]:
    """(colour, pattern) of the k-th chain of a document: every colour plain, then every
    colour again with the next pattern (the web app's pages and the TNE study's)."""
    return k % colours, k // colours % patterns


def chain_class(k: int) -> str:
    """CSS classes of the k-th chain of a document (in textual order)."""
    colour, pattern = chain_look(k, CHAIN_COLOURS, CHAIN_PATTERNS)
    return f"chain{colour}" + (f" chainpat{pattern}" if pattern else "")


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


@dataclass(frozen=True)
class Mark:
    kind: str  # mention | pronoun | np
    cand: int | None = None
    np: str | None = None
    chain: int | None = None

    @property
    def css(self) -> str:
        if self.kind == "pronoun":
            return "pron"
        if self.kind == "mention" and self.cand is not None:
            return f"ment ent{self.cand % ENTITY_COLOURS}"
        if self.kind == "evidence":
            return "evidence"
        if self.kind == "np":
            return "np" + (f" {chain_class(self.chain)}" if self.chain is not None else "")
        return ""


def payload_spans(payload: dict[str, Any]) -> list[tuple[int, int, Mark]]:
    return [(a, b, Mark(kind, cand)) for a, b, kind, cand in payload.get("marks", [])]


def page_candidates(payload: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**c, "k": k, "gold": k == payload.get("gold")}
            for k, c in enumerate(payload["candidates"])]


def choice_view(payload: dict[str, Any]) -> dict[str, Any]:
    return {"segments": segment(payload["text"], payload_spans(payload)),
            "candidates": page_candidates(payload)}


def highlight_sentences(text: str, chosen: list[str]) -> list[Segment]:
    """``text`` cut so the chosen evidence sentences are marked (found by exact position)."""
    spans: list[tuple[int, int, Mark]] = []
    for sent in chosen:
        at = text.find(sent)
        if at >= 0 and sent:
            spans.append((at, at + len(sent), Mark("evidence")))
    return segment(text, spans)
