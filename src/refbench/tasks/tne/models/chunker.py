"""Base noun phrases for raw text, as TNE defines them: spaCy ``en_core_web_sm`` noun chunks
(already base NPs: no prepositional attachments), pronouns dropped, named entities that span
several chunks ("Church of Scientology") kept whole, and time/date/measure expressions kept but
flagged (TNE marks their coreference clusters as time/date/measurement)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

MEASURE_ENTS = frozenset({"DATE", "TIME", "MONEY", "QUANTITY", "PERCENT"})
_WHOLE_ENTS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "WORK_OF_ART", "EVENT", "NORP",
                         "PRODUCT", "LAW"})


@dataclass(frozen=True)
class Chunk:
    text: str
    first_char: int
    last_char: int  # exclusive
    first_token: int
    last_token: int  # inclusive, spaCy token indices
    measure: bool


def nlp() -> Any:
    from refbench.tasks.spacy_english import english

    return english("NP chunking")


def chunks_of(doc: Any) -> list[Chunk]:
    spans = []
    for nc in doc.noun_chunks:
        if nc.root.pos_ == "PRON" or all(t.pos_ in ("PRON", "DET", "PUNCT") for t in nc):
            continue
        spans.append((nc.start, nc.end))
    for ent in doc.ents:
        covered = [s for s in spans if s[0] < ent.end and s[1] > ent.start]
        if ent.label_ in _WHOLE_ENTS and len(covered) > 1:
            start = min([ent.start, *(s[0] for s in covered)])
            end = max([ent.end, *(s[1] for s in covered)])
            spans = [s for s in spans if s not in covered] + [(start, end)]
        elif ent.label_ in MEASURE_ENTS and not covered:
            spans.append((ent.start, ent.end))
    measure_tokens = {t.i for e in doc.ents if e.label_ in MEASURE_ENTS for t in e}
    spans = [piece for s in spans for piece in _split_at_breaks(doc, s)]
    out = []
    for start, end in sorted(set(spans)):
        span = doc[start:end]
        out.append(Chunk(span.text, span.start_char, span.end_char, start, end - 1,
                         any(i in measure_tokens for i in range(start, end))))
    return out


def _split_at_breaks(doc: Any, span: tuple[int, int]) -> list[tuple[int, int]]:
    """A chunk never crosses a line break (titles, paragraph breaks)."""
    pieces, start = [], span[0]
    for i in range(span[0], span[1]):
        if doc[i].is_space or "\n" in doc[i].text:
            if i > start:
                pieces.append((start, i))
            start = i + 1
    if span[1] > start:
        pieces.append((start, span[1]))
    return [p for p in pieces if any(not doc[i].is_punct for i in range(*p))]


def chunk_texts(texts: Iterable[str]) -> Iterator[list[Chunk]]:
    for doc in nlp().pipe(texts, batch_size=16):
        yield chunks_of(doc)
