"""Shared word roots of occupations and situations: a shallow cue ("firefighter" / "putting out
fires") that the resource builder filters, the difficulty profile measures, and the datasheet
reports (the paper gives 45% for its real pool)."""

from __future__ import annotations

from functools import lru_cache

from refbench.tasks.kitmus.generate.resources import Resources

_SUFFIXES = ("ists", "ians", "ings", "ers", "ors", "ies", "ist", "ian", "ing", "ers", "er", "or",
             "es", "ed", "s", "y", "e")
_FUNCTION_TAGS = ("DT", "IN", "CC", "TO", "PRP", "PRP$", "WRB", "MD", "RP", "POS", ".", ",")


@lru_cache(maxsize=65536)
def word_root(word: str) -> str:
    """A crude stem: strip one common suffix while at least four letters remain."""
    w = word.lower()
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            return w[: -len(suf)]
    return w


def shares_root(a: str, b: str) -> bool:
    ra, rb = word_root(a), word_root(b)
    if len(ra) < 4 or len(rb) < 4:
        return ra == rb
    return ra in b.lower() or rb in a.lower()


def root_overlap(res: Resources, occupation_source: str, situation_source: str) -> float:
    """Share of occupation rows whose occupation shares a root with a word of its situation."""
    occs = res.occupations.get(occupation_source, ())
    sits = res.situations.get(situation_source, ())
    if not occs or not sits:
        return 0.0
    hits = 0
    for occ, sit in zip(occs, sits, strict=True):
        content = [w for w, t in sit if t not in _FUNCTION_TAGS]
        if any(shares_root(o, s) for o, _ in occ for s in content):
            hits += 1
    return round(hits / len(occs), 4)
