"""Text helpers shared by the models: sentences, the expression's sentence, candidate evidence.

Everything is computed from the instance's text alone (context, expression, candidates): no
model may look at the gold answer or at generator metadata.
"""

from __future__ import annotations

import re
from functools import lru_cache

from refbench.core.types import ChoiceInstance
from refbench.nlp.stopwords import STOP

_SENT_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(\[])")
WORD = re.compile(r"[a-z0-9][a-z0-9'\-]*")


@lru_cache(maxsize=4096)
def sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    """``[start, end)`` of each sentence (splits after . ! ? followed by a capitalised word)."""
    spans = []
    start = 0
    for m in _SENT_END.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return tuple((a, b) for a, b in spans if text[a:b].strip())


_DESCRIPTION_SPLIT = re.compile(r"(?<=[.!?])\s+")


def description_sentences(text: str) -> list[str]:
    """Sentences of a free-text description, infobox fields included (``genre: pop.`` is one)."""
    return [s for s in (p.strip() for p in _DESCRIPTION_SPLIT.split(text)) if s]


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def content_words(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOP}


def expression_sentence(inst: ChoiceInstance) -> tuple[int, int]:
    """The span of the sentence holding the expression (the whole context if unknown)."""
    if inst.expression_offset is None:
        return (0, len(inst.context))
    for a, b in sentence_spans(inst.context):
        if a <= inst.expression_offset < b:
            return (a, b)
    return (0, len(inst.context))


def mentions(sentence: str, name: str) -> bool:
    return re.search(r"(?<![\w])" + re.escape(name) + r"(?![\w])", sentence) is not None


def entity_sentences(inst: ChoiceInstance) -> list[list[str]]:
    """Per candidate, the sentences outside the expression's sentence that mention it and no
    other candidate (in KITMUS: its entity-knowledge sentences)."""
    ea, eb = expression_sentence(inst)
    out: list[list[str]] = [[] for _ in inst.candidates]
    for a, b in sentence_spans(inst.context):
        if a == ea and b == eb:
            continue
        sent = inst.context[a:b]
        hits = [k for k, c in enumerate(inst.candidates) if mentions(sent, c.text)]
        if len(hits) == 1:
            out[hits[0]].append(sent)
    return out


def unattached_sentences(inst: ChoiceInstance) -> list[str]:
    """Sentences that mention no candidate and are not the expression's sentence."""
    ea, eb = expression_sentence(inst)
    out = []
    for a, b in sentence_spans(inst.context):
        sent = inst.context[a:b]
        if (a, b) != (ea, eb) and not any(mentions(sent, c.text) for c in inst.candidates):
            out.append(sent)
    return out


def marked_expression_sentence(inst: ChoiceInstance, replacement: str | None = None) -> str:
    """The expression's sentence with the expression replaced (or marked with brackets)."""
    a, b = expression_sentence(inst)
    if inst.expression_offset is None:
        return inst.expression
    off = inst.expression_offset - a
    sent = inst.context[a:b]
    end = off + len(inst.expression)
    middle = replacement if replacement is not None else f"[{inst.expression}]"
    return sent[:off] + middle + sent[end:]


def key_phrase(sentence: str, name: str) -> str | None:
    """What a sentence about ``name`` says it is: the phrase after its last indefinite article
    ("Telles works as a bus driver." -> "bus driver"), or None."""
    tail = re.sub(r"(?<![\w])" + re.escape(name) + r"(?![\w])", " ", sentence)
    found = None
    for m in re.finditer(r"\b(?:a|an)\s+", tail, flags=re.IGNORECASE):
        found = m.end()
    if found is None:
        return None
    phrase = tail[found:].strip().rstrip(".!?").strip()
    return phrase or None


def candidate_evidence(inst: ChoiceInstance, k: int) -> str:
    """What the context says about candidate ``k``: its description if it has one, else its
    own sentences plus the unattached sentences that name what those sentences say it is (in
    KITMUS: the entity-knowledge sentence and the background sentence about its occupation)."""
    cand = inst.candidates[k]
    if cand.description:
        return f"{cand.text}. {cand.description}"
    own = entity_sentences(inst)[k]
    if not own:
        return cand.text
    phrases = [p for p in (key_phrase(s, cand.text) for s in own) if p]
    related = [s for s in unattached_sentences(inst)
               if any(mentions(s.lower(), p.lower()) for p in phrases)]
    return " ".join([*own, *related])
