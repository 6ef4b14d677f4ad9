"""KITMUS gold for scoring: the pronoun, the candidate antecedents and the answer per instance.

Everything comes from the data's structure (``structure.locate``), never from the file path or
a token's spelling: the task text starts at the first sentence that mentions two or more
entities (the meet sentence), the pronoun is the one mention after it, candidates are the other
entity mentions of the task text in textual order, and the answer is the candidate whose cluster
holds the pronoun. An entity named ``He`` is a candidate like any other. Gold may be CoNLL-2012
(refbench's or the official release), e2e jsonlines, refbench's native JSONL, or a GAP TSV;
plain or gzipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from refbench.core.cache import code_stamp, load_parsed, save_parsed
from refbench.core.errors import RefbenchError
from refbench.core.inputs import format_name
from refbench.core.invalid import InvalidInstances, parse_each, reject
from refbench.formats.conll2012 import ConllDocument, read_conll
from refbench.formats.detok import detokenize
from refbench.formats.e2e_jsonlines import read_jsonlines
from refbench.formats.gap_tsv import read_gap
from refbench.tasks.kitmus.instance import VIEWS
from refbench.tasks.kitmus.native import read_native
from refbench.tasks.kitmus.structure import StructureError, locate

Span = tuple[int, int]  # document-level token span, end inclusive
_ID = re.compile(r"kitmus/(?P<variant>[^/]+)/subtask_(?P<n>\d+)_ents/(?:[^/]+/)?(?P<split>[\w-]+):")


def instance_key(doc_id: str) -> str:
    """The id with any view segment removed, so every view of an instance shares one key."""
    for view in VIEWS:
        doc_id = doc_id.replace(f"/{view}/", "/")
    return doc_id


def pronoun_group(form: str) -> str:
    f = form.lower()
    if f in ("he", "him", "his", "himself"):
        return "he"
    if f in ("she", "her", "hers", "herself"):
        return "she"
    if f in ("they", "them", "their", "theirs", "themself", "themselves"):
        return "they"
    return "neopronoun"


@dataclass(frozen=True)
class Candidate:
    name: str
    span: Span | None  # token span (token-level gold)
    offset: int | None = None  # character offset (GAP gold)


@dataclass(frozen=True)
class GoldItem:
    """One instance. Token-level gold (CoNLL, native) has ``words`` and spans; GAP gold has
    character offsets and ``text`` only. Character offsets of token-level gold are derived on
    first use (only GAP-format predictions need them)."""

    key: str
    doc_id: str
    pronoun_form: str
    pronoun_span: Span | None
    candidates: tuple[Candidate, ...]  # in textual order: index = answer position
    answer: int
    words: tuple[str, ...] | None = None
    gap_text: str | None = None
    gap_pronoun_offset: int | None = None

    @cached_property
    def _detok(self) -> tuple[str, list[int]] | None:
        return detokenize(self.words) if self.words is not None else None

    @property
    def text(self) -> str | None:
        return self._detok[0] if self._detok is not None else self.gap_text

    @property
    def pronoun_offset(self) -> int | None:
        if self._detok is not None and self.pronoun_span is not None:
            return self._detok[1][self.pronoun_span[0]]
        return self.gap_pronoun_offset

    def candidate_offset(self, k: int) -> int | None:
        cand = self.candidates[k]
        if self._detok is not None and cand.span is not None:
            return self._detok[1][cand.span[0]]
        return cand.offset

    @property
    def variant(self) -> str | None:
        m = _ID.search(self.doc_id)
        return m.group("variant") if m else None


def gold_from_conll_doc(doc: ConllDocument, *, path: Path | str) -> GoldItem:
    """The gold item of one document, its parts found by :func:`structure.locate`."""
    starts: list[int] = []
    words: list[str] = []
    for sent in doc.sentences:
        starts.append(len(words))
        words.extend(w for w, _ in sent)
    refs = [(m.sentence, m.start, m.end, cid) for cid, ms in doc.clusters.items() for m in ms]
    try:
        found = locate(refs)
    except StructureError as exc:
        raise RefbenchError(str(exc), path=path, item=doc.doc_id) from None
    answers = [i for i, m in enumerate(found.candidates) if m[3] == found.pronoun[3]]
    if len(answers) != 1:
        raise RefbenchError(f"the pronoun's cluster holds {len(answers)} candidate mentions in the "
                            "task text; expected exactly one", path=path, item=doc.doc_id)

    def span(m: tuple[int, int, int, object]) -> Span:
        return (starts[m[0]] + m[1], starts[m[0]] + m[2])

    def text(m: tuple[int, int, int, object]) -> str:
        return " ".join(w for w, _ in doc.sentences[m[0]][m[1]:m[2] + 1])

    return GoldItem(
        key=instance_key(doc.doc_id), doc_id=doc.doc_id, pronoun_form=text(found.pronoun),
        pronoun_span=span(found.pronoun),
        candidates=tuple(Candidate(text(m), span(m)) for m in found.candidates),
        answer=answers[0], words=tuple(words),
    )


def read_gold(path: str | Path, *, on_invalid: InvalidInstances | None = None,
              ablate: str = "none") -> Iterator[GoldItem]:
    """Gold items from CoNLL-2012, e2e ``.jsonlines`` (gold ``clusters``), native JSONL or GAP
    TSV, plain or gzipped. ``on_invalid`` (``--skip-invalid``): skip and record malformed
    instances.

    A token-level gold file read whole without errors is kept parsed in refbench's cache
    folder (:mod:`refbench.core.cache`), keyed by its content: scoring against it again skips
    the parse (most of ``refbench evaluate``'s time on a CoNLL file)."""
    p = Path(path)
    if ablate != "none":
        if not format_name(p).endswith(".jsonl"):
            raise RefbenchError(f"ablate={ablate} needs KITMUS native JSONL (it knows which "
                                "sentences are knowledge; refbench kitmus generate writes it)",
                                path=p)
        yield from _read_gold(p, on_invalid=on_invalid, ablate=ablate)
        return
    if on_invalid is not None or not format_name(p).endswith(
            (".v4_gold_conll", ".conll", "_conll", ".jsonlines")):
        yield from _read_gold(p, on_invalid=on_invalid)
        return
    stamp = code_stamp(__name__, "refbench.formats.conll2012", "refbench.formats.e2e_jsonlines",
                       "refbench.tasks.kitmus.structure")
    # how the name says to open the bytes is part of the key: the same bytes named .gz are
    # not the file they are when named plainly (plain text named .gz is an error)
    stamp += "-gz" if p.name.endswith(".gz") else ""
    rows = load_parsed("kitmus-gold", p, stamp)
    if isinstance(rows, list):
        yield from (_from_row(r) for r in rows)
        return
    items = list(_read_gold(p, on_invalid=None))
    save_parsed("kitmus-gold", p, stamp, [_to_row(g) for g in items])
    yield from items


def _to_row(g: GoldItem) -> list[Any]:
    return [g.key, g.doc_id, g.pronoun_form, g.pronoun_span,
            [[c.name, c.span, c.offset] for c in g.candidates], g.answer, g.words]


def _from_row(r: list[Any]) -> GoldItem:
    def span(s: list[int] | None) -> Span | None:
        return None if s is None else (s[0], s[1])

    return GoldItem(r[0], r[1], r[2], span(r[3]),
                    tuple(Candidate(c[0], span(c[1]), c[2]) for c in r[4]), r[5],
                    None if r[6] is None else tuple(r[6]))


def _read_gold(p: Path, *, on_invalid: InvalidInstances | None, ablate: str = "none"
               ) -> Iterator[GoldItem]:
    name = format_name(p)
    if name.endswith((".v4_gold_conll", ".conll", "_conll")):
        yield from parse_each(((d.doc_id, d) for d in read_conll(p, on_invalid=on_invalid)),
                              lambda d: gold_from_conll_doc(d, path=p), on_invalid)
    elif name.endswith(".jsonlines"):
        yield from parse_each(
            ((d.doc_key, d) for d in read_jsonlines(p, on_invalid=on_invalid)),
            lambda d: gold_from_conll_doc(d.to_conll_document(path=p), path=p), on_invalid)
    elif name.endswith(".jsonl"):
        from refbench.tasks.kitmus.score.ablate import ablated

        for inst in (ablated(i, ablate) for i in read_native(p, on_invalid=on_invalid)):
            words = [w for s in inst.sentences for w, _ in s.tokens]
            starts = []
            total = 0
            for s in inst.sentences:
                starts.append(total)
                total += len(s.tokens)
            order = sorted(range(inst.n_entities), key=lambda e: inst.task_mention(e))
            cands = []
            for e in order:
                m = inst.task_mention(e)
                span = (starts[m.sentence] + m.start, starts[m.sentence] + m.end)
                cands.append(Candidate(inst.entities[e].name, span))
            pm = inst.pronoun_mention
            p_span = (starts[pm.sentence] + pm.start, starts[pm.sentence] + pm.end)
            yield GoldItem(instance_key(inst.id), inst.id, words[p_span[0]], p_span,
                           tuple(cands), order.index(inst.answer), tuple(words))
    elif name.endswith(".tsv"):
        for row in read_gap(p, on_invalid=on_invalid):
            if row.a_coref == row.b_coref:
                reject(on_invalid, RefbenchError("a KITMUS gold row needs exactly one of A-coref "
                                                 "and B-coref TRUE", path=p, line=row.line,
                                                 item=row.id), item=row.id)
                continue
            pair = sorted([(row.a_offset, row.a, row.a_coref), (row.b_offset, row.b, row.b_coref)])
            yield GoldItem(instance_key(row.id), row.id, row.pronoun, None,
                           tuple(Candidate(n, None, o) for o, n, _ in pair),
                           0 if pair[0][2] else 1, None, row.text, row.pronoun_offset)
    else:
        raise RefbenchError("unknown gold format: expected .v4_gold_conll, .conll, .jsonlines, "
                            ".jsonl or .tsv (optionally .gz)", path=p)
