"""Render one instance in one view as CoNLL-2012, e2e-coref jsonlines, GAP TSV or text.

Each writer returns a string for one document; the suite writer streams them to disk. Columns
of the CoNLL file are separated by single spaces (no fixed widths), so long document ids can
never break the layout.

The three views share their sentences (full text = knowledge text + task text), so what a
sentence looks like in a format is computed once per instance and the views are joined from
the pieces (:class:`_Pieces`, kept in ``inst.cache``); the bytes are those of
:func:`refbench.formats.conll2012.format_conll`, :func:`refbench.formats.e2e_jsonlines.
format_jsonlines` and :func:`refbench.formats.detok.detokenize` on the whole view (a test
compares them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from json.encoder import encode_basestring

from refbench.formats.detok import Piece, detokenize_from, join_pieces
from refbench.formats.gap_tsv import format_row
from refbench.tasks.kitmus.instance import KitmusInstance, Sentence

GAP_HEADER = ("ID\tText\tPronoun\tPronoun-offset\tA\tA-offset\tA-coref\tB\tB-offset\tB-coref"
              "\tURL\n")


Span3 = tuple[int, int, int]


def view_clusters(inst: KitmusInstance, view: str) -> tuple[list[int], list[list[Span3]]]:
    """Sentences of the view and, per entity, its mentions as (view sentence, start, end)."""
    sent_ids = inst.view_sentences(view)
    local = {s: k for k, s in enumerate(sent_ids)}
    clusters: list[list[Span3]] = []
    for e, ent in enumerate(inst.entities):
        spans = [(local[m.sentence], m.start, m.end) for m in ent.mentions if m.sentence in local]
        pm = inst.pronoun_mention
        if e == inst.answer and pm.sentence in local:
            spans.append((local[pm.sentence], pm.start, pm.end))
        clusters.append(sorted(spans))
    return sent_ids, clusters


@lru_cache(maxsize=64)
def _speakers(n: int) -> str:
    return json.dumps(["Speaker#1"] * n)


@dataclass
class ViewText:
    """A view's detokenised text; ``offset(s, i)``: where token ``i`` of sentence ``s`` (an
    index into ``inst.sentences``) starts."""

    text: str
    offsets: list[int]
    starts: dict[int, int]

    def offset(self, sentence: int, token: int) -> int:
        return self.offsets[self.starts[sentence] + token]


class _Pieces:
    """Per instance: each view's sentences, each sentence's CoNLL lines and jsonlines words,
    and each view's text, computed once and shared by every view and format."""

    def __init__(self, inst: KitmusInstance) -> None:
        self.inst = inst
        self.views = {view: inst.view_sentences(view)
                      for view in ("full-text", "task-text-only", "knowledge-text-only")}
        self._conll: dict[int, str] = {}
        self._words: dict[int, str] = {}
        self._texts: dict[str, ViewText] = {}
        self._detok: dict[str, Piece] = {}

    def conll_sentence(self, s: int) -> str:
        block = self._conll.get(s)
        if block is None:
            inst = self.inst
            marks: dict[int, list[str]] = {}
            for cid, ent in enumerate(inst.entities, start=1):
                spans = [(m.start, m.end) for m in ent.mentions if m.sentence == s]
                pm = inst.pronoun_mention
                if cid - 1 == inst.answer and pm.sentence == s:
                    spans.append((pm.start, pm.end))
                for a, b in sorted(spans):
                    if a == b:
                        marks.setdefault(a, []).append(f"({cid})")
                    else:
                        marks.setdefault(a, []).append(f"({cid}")
                        marks.setdefault(b, []).append(f"{cid})")
            sentence = inst.sentences[s]
            key = tuple([(i, "|".join(m)) for i, m in sorted(marks.items())])
            tails = (_conll_tails_shared if sentence.role in _SHARED_ROLES else _conll_tails)(
                sentence.tokens, key)
            prefix = f"{inst.id} 0 "
            block = self._conll[s] = (prefix + f"\n{prefix}".join(tails) + "\n\n" if tails
                                      else "\n")
        return block

    def words_json(self, s: int) -> str:
        """``json.dumps(words, ensure_ascii=False)`` of sentence ``s``."""
        out = self._words.get(s)
        if out is None:
            sentence = self.inst.sentences[s]
            out = self._words[s] = (_words_json_shared(sentence.tokens)
                                    if sentence.role in _SHARED_ROLES
                                    else json_strings([w for w, _ in sentence.tokens]))
        return out

    def clusters_json(self, view: str) -> str:
        """The view's clusters as e2e jsonlines writes them: per entity with a mention in the
        view, its mentions (the pronoun in the answer's) as sorted [start, end] token spans of
        the whole document."""
        inst = self.inst
        starts = self.text(view).starts
        out = []
        for e, ent in enumerate(inst.entities):
            spans = [(starts[m.sentence] + m.start, starts[m.sentence] + m.end)
                     for m in ent.mentions if m.sentence in starts]
            pm = inst.pronoun_mention
            if e == inst.answer and pm.sentence in starts:
                spans.append((starts[pm.sentence] + pm.start, starts[pm.sentence] + pm.end))
            if spans:
                out.append(", ".join([f"[{a}, {b}]" for a, b in sorted(spans)]))
        return "[" + ", ".join([f"[{c}]" for c in out]) + "]"

    def _piece(self, view: str) -> Piece:
        """detokenize_from of a view's words; the full text joined from the other two."""
        piece = self._detok.get(view)
        if piece is None:
            ids = self.views[view]
            know, task = self.views["knowledge-text-only"], self.views["task-text-only"]
            if view == "full-text" and ids == know + task:
                piece = join_pieces(self._words_of(know), self._piece("knowledge-text-only"),
                                    self._words_of(task), self._piece("task-text-only"))
            else:
                piece = detokenize_from(self._words_of(ids))
            self._detok[view] = piece
        return piece

    def _words_of(self, ids: list[int]) -> list[str]:
        return [w for s in ids for w, _ in self.inst.sentences[s].tokens]

    def text(self, view: str) -> ViewText:
        vt = self._texts.get(view)
        if vt is None:
            text, offsets, _, _ = self._piece(view)
            starts, total = {}, 0
            for s in self.views[view]:
                starts[s] = total
                total += len(self.inst.sentences[s].tokens)
            vt = self._texts[view] = ViewText(text, offsets, starts)
        return vt


# Sentences that many instances of a job repeat word for word (a background sentence, the
# noise, the pronoun's sentence) have their CoNLL columns after the document id and their
# words' and tags' JSON made once per process.
_SHARED_ROLES = frozenset({"background_knowledge", "noise", "pronoun"})
Marks = tuple[tuple[int, str], ...]


def _conll_tails(tokens: tuple[tuple[str, str], ...], marks: Marks) -> list[str]:
    """Each token's CoNLL line after ``<document id> 0 `` (without its newline)."""
    at = dict(marks)
    return [f"{i} {word} {tag} * - - - Speaker#1 * {at.get(i, '-')}"
            for i, (word, tag) in enumerate(tokens)]


_conll_tails_shared = lru_cache(maxsize=8192)(_conll_tails)


@lru_cache(maxsize=8192)
def _words_json_shared(tokens: tuple[tuple[str, str], ...]) -> str:
    return json_strings([w for w, _ in tokens])


@lru_cache(maxsize=8192)
def _tags_json_shared(tokens: tuple[tuple[str, str], ...]) -> str:
    return json_strings([t for _, t in tokens])


def _tags_json(s: Sentence) -> str:
    if s.role in _SHARED_ROLES:
        return _tags_json_shared(s.tokens)
    return json_strings([t for _, t in s.tokens])


def _pieces(inst: KitmusInstance) -> _Pieces:
    p = inst.cache.get("pieces")
    if not isinstance(p, _Pieces):
        p = inst.cache["pieces"] = _Pieces(inst)
    return p


def write_conll(inst: KitmusInstance, view: str) -> str:
    p = _pieces(inst)
    return (f"#begin document ({inst.id}); part 000\n"
            + "".join([p.conll_sentence(s) for s in p.views[view]]) + "#end document\n")


def json_strings(items: list[str]) -> str:
    """``json.dumps(items, ensure_ascii=False)`` of a list of strings, faster."""
    return "[" + ", ".join(map(encode_basestring, items)) + "]"


def write_jsonlines(inst: KitmusInstance, view: str) -> str:
    """The line :func:`refbench.formats.e2e_jsonlines.format_jsonlines` writes, from pieces."""
    p = _pieces(inst)
    ids = p.views[view]
    return (f'{{"doc_key": {encode_basestring(inst.id)}, "sentences": ['
            + ", ".join([p.words_json(s) for s in ids]) + '], "speakers": ['
            + ", ".join([_speakers(len(inst.sentences[s].tokens)) for s in ids])
            + f'], "clusters": {p.clusters_json(view)}}}\n')


def sentences_json(inst: KitmusInstance) -> str:
    """The native JSONL's ``sentences`` list, as ``json.dumps(..., ensure_ascii=False)``
    writes it, sharing each sentence's words with jsonlines."""
    p = _pieces(inst)
    return "[" + ", ".join([
        f'{{"part": {encode_basestring(s.part)}, "role": {encode_basestring(s.role)}, '
        f'"tokens": {p.words_json(k)}, "pos": {_tags_json(s)}}}'
        for k, s in enumerate(inst.sentences)]) + "]"


def view_text(inst: KitmusInstance, view: str) -> ViewText:
    """Detokenised text of a view and the character offset of each (sentence, token)."""
    return _pieces(inst).text(view)


def write_txt(inst: KitmusInstance, view: str) -> str:
    return f"{inst.id}\n{view_text(inst, view).text}\n\n"


def write_gap(inst: KitmusInstance, view: str) -> str:
    """One GAP row: A and B are the first and second entity named in the meet sentence."""
    if inst.n_entities != 2 or view == "knowledge-text-only":
        raise ValueError("GAP rows exist only for 2-entity instances in views with the pronoun")
    vt = view_text(inst, view)
    pm = inst.pronoun_mention
    cols = [inst.id, vt.text, inst.sentences[pm.sentence].tokens[pm.start][0],
            str(vt.offset(pm.sentence, pm.start))]
    for e in inst.meet_order:
        m = inst.task_mention(e)
        name = " ".join(w for w, _ in inst.sentences[m.sentence].tokens[m.start:m.end + 1])
        cols += [name, str(vt.offset(m.sentence, m.start)),
                 "TRUE" if e == inst.answer else "FALSE"]
    cols.append("none")
    return format_row(cols)
