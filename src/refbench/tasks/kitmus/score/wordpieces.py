"""Coreference output of BERT-based systems (e2e-coref BERT, SpanBERT, BERT4Coref): ``sentences``
hold wordpieces in segments (``[CLS] Wei ##sman is a tail ##or . ... [SEP]``) and
``subtoken_map`` gives the word of each piece, while ``clusters`` index either those subtokens
or the words of the original document (BERT4Coref's published KITMUS output does the latter).

The official KITMUS evaluator never reads ``sentences``; refbench does, to make sure the
predictions are about the gold document: the pieces are merged into words by ``subtoken_map``
(``[CLS]``/``[SEP]`` dropped, ``##`` joined) and compared with the gold words, ignoring case
and accents (uncased vocabularies lower-case and strip them) and letting ``[UNK]`` stand for
any characters. Then each reading of ``clusters`` is tried against the gold document:

- as word indices, every span must lie inside the document's words;
- as subtoken indices, every span must start at a word's first piece and end at a word's last
  piece (never on ``[CLS]``/``[SEP]``); it is mapped to words through ``subtoken_map``.

One reading that fits is used; when both fit, the one whose spans coincide with more gold
mentions (candidates and pronoun) wins, and a tie that would change the score is an error, as
is a document that fits neither.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from refbench.core.errors import RefbenchError
from refbench.tasks.kitmus.score.gold import GoldItem, Span

SPECIAL = frozenset({"[CLS]", "[SEP]", "[PAD]"})
UNKNOWN = "[UNK]"


@dataclass(frozen=True)
class Wordpieces:
    """A document's subtokens (all segments, flattened) and the word index of each."""

    pieces: tuple[str, ...]
    subtoken_map: tuple[int, ...]


@dataclass(frozen=True)
class _Words:
    words: list[str]
    first: list[int]  # word -> its first piece
    last: list[int]  # word -> its last piece


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _same_word(merged: str, gold: str) -> bool:
    if UNKNOWN not in merged:
        return _fold(merged) == _fold(gold)
    parts = [re.escape(_fold(p)) for p in merged.split(UNKNOWN)]
    return re.fullmatch(".+?".join(parts), _fold(gold), flags=re.DOTALL) is not None


def merge(wp: Wordpieces, where: str, item: str) -> _Words:
    """The words the pieces spell, with the pieces each word spans."""
    words: list[str] = []
    first: list[int] = []
    last: list[int] = []
    for i, (piece, word) in enumerate(zip(wp.pieces, wp.subtoken_map, strict=True)):
        if piece in SPECIAL:
            continue
        text = piece[2:] if piece.startswith("##") else piece
        if words and word == len(words) - 1:
            words[-1] += text
            last[-1] = i
        elif word == len(words):
            words.append(text)
            first.append(i)
            last.append(i)
        else:
            raise RefbenchError(f"subtoken_map[{i}] is {word}, expected {len(words) - 1} or "
                                f"{len(words)} (word indices must rise one by one)",
                                path=where, item=item)
    return _Words(words, first, last)


def check_words(merged: _Words, gold: GoldItem, where: str) -> None:
    """The merged pieces must spell the gold document's words."""
    assert gold.words is not None
    ours, theirs = merged.words, gold.words
    bad = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False))
                if not _same_word(a, b)), None)
    if bad is None and len(ours) == len(theirs):
        return
    at = bad if bad is not None else min(len(ours), len(theirs))
    shown = (f": {ours[at]!r} vs {theirs[at]!r}" if at < min(len(ours), len(theirs))
             else "")
    raise RefbenchError(f"predictions are tokenised differently from the gold (wordpieces "
                        f"merged by subtoken_map: first difference at word {at}{shown}; "
                        f"{len(ours)} vs {len(theirs)} words)", path=where, item=gold.doc_id)


def _as_subtokens(span: Span, wp: Wordpieces, merged: _Words) -> Span | str:
    """The word span a subtoken span covers, or why it is not one."""
    a, b = span
    if b >= len(wp.pieces):
        return f"span [{a}, {b}] lies outside the {len(wp.pieces)} subtokens"
    for k in (a, b):
        if wp.pieces[k] in SPECIAL:
            return f"span [{a}, {b}] touches {wp.pieces[k]} at subtoken {k}"
    wa, wb = wp.subtoken_map[a], wp.subtoken_map[b]
    if merged.first[wa] != a or merged.last[wb] != b:
        return f"span [{a}, {b}] cuts through a word's pieces"
    return (wa, wb)


def word_clusters(gold: GoldItem, clusters: tuple[frozenset[Span], ...], wp: Wordpieces,
                  where: str) -> tuple[frozenset[Span], ...]:
    """``clusters`` of a wordpiece prediction as spans over the gold document's words."""
    merged = merge(wp, where, gold.doc_id)
    check_words(merged, gold, where)
    n_words = len(merged.words)
    spans = sorted({s for c in clusters for s in c})
    outside = next((s for s in spans if s[1] >= n_words), None)
    as_words = None if outside is not None else clusters
    mapped: dict[Span, Span] = {}
    why_not = None
    for s in spans:
        m = _as_subtokens(s, wp, merged)
        if isinstance(m, str):
            why_not = m
            break
        mapped[s] = m
    as_subtokens = None if why_not is not None else tuple(
        frozenset(mapped[s] for s in c) for c in clusters)
    if as_words is None and as_subtokens is None:
        assert outside is not None
        raise RefbenchError(f"clusters fit neither reading of a wordpiece prediction: as word "
                            f"indices, span [{outside[0]}, {outside[1]}] lies outside the "
                            f"{n_words} words; as subtoken indices, {why_not}",
                            path=where, item=gold.doc_id)
    if as_subtokens is None or as_words == as_subtokens:
        assert as_words is not None
        return as_words
    if as_words is None:
        return as_subtokens
    mentions = {c.span for c in gold.candidates} | {gold.pronoun_span}
    hits_w = sum(s in mentions for c in as_words for s in c)
    hits_s = sum(s in mentions for c in as_subtokens for s in c)
    if hits_w != hits_s:
        return as_words if hits_w > hits_s else as_subtokens
    if _links(gold, as_words) == _links(gold, as_subtokens):
        return as_words
    raise RefbenchError("clusters fit both readings of a wordpiece prediction (word and "
                        "subtoken indices) equally well and they link different candidates; "
                        "convert the file to word indices", path=where, item=gold.doc_id)


def _links(gold: GoldItem, clusters: tuple[frozenset[Span], ...]) -> set[int]:
    return {k for k, cand in enumerate(gold.candidates)
            if any(cand.span in c and gold.pronoun_span in c for c in clusters)}
