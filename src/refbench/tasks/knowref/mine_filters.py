"""The KnowRef mining stages for one sentence (section 3.1), as pure functions.

Cheap text filters run first; spaCy (POS tags, noun chunks, person entities) only sees the
sentences that survive them. Each stage's name is a key of the funnel report.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from refbench.nlp.stopwords import STOP as STOPWORDS

STAGES = ("records", "sentences", "clean", "length_9_33", "uppercase_start", "no_math",
          "one_connective", "two_words_before", "pronoun_after_only", "two_noun_phrases",
          "both_persons", "labelled")
CONNECTIVES = frozenset({",", ";", "or", "since", "but", "because", "although", "though",
                         "while", "whereas", "unless", "until", "so"})
PRONOUNS = frozenset({"he", "she", "him", "her", "his", "hers", "they", "them", "their"})
_TAG = re.compile(r"<[^>]{0,200}>")
_MDLINK = re.compile(r"\[([^\]]{0,200})\]\([^)]{0,500}\)")
_URL = re.compile(r"https?://\S+|www\.\S+")
_MARK = re.compile(r"[*_#>`~|]+")
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])")
_TOKEN = re.compile(r"\w+(?:'\w+)?|[^\w\s]")
_MATH = re.compile(r"[=+*/^<>]|\d\s*[-x]\s*\d|\\[a-z]+")


def clean(text: str) -> str:
    """Markup and non-ASCII clean-up: HTML entities and tags, links, URLs, emphasis marks,
    accents folded to ASCII, anything else non-ASCII dropped, spaces normalised."""
    text = html.unescape(text)
    text = _TAG.sub(" ", text)
    text = _MDLINK.sub(r"\1", text)
    text = _URL.sub(" ", text)
    text = _MARK.sub(" ", text)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"\s+", " ", text).strip()


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SPLIT.split(text) if s.strip()]


def tokens(sentence: str) -> list[str]:
    return _TOKEN.findall(sentence)


@dataclass
class Candidate:
    """A sentence that passed the cheap filters, waiting for the spaCy stages."""

    sentence: str
    tokens: list[str]
    connective_at: int  # token index of the first connective token
    connective: str
    source: dict[str, Any]


def cheap_filters(sentence: str, source: dict[str, Any]) -> Iterator[str | Candidate]:
    """Yield the name of each stage passed, then a Candidate if all cheap stages pass."""
    toks = tokens(sentence)
    if not 9 <= len(toks) <= 33:
        return
    yield "length_9_33"
    if not toks[0][:1].isupper():
        return
    yield "uppercase_start"
    if _MATH.search(sentence):
        return
    yield "no_math"
    lowered = [t.lower() for t in toks]
    clusters = []
    i = 0
    while i < len(lowered):
        if lowered[i] in CONNECTIVES:
            j = i
            while j + 1 < len(lowered) and lowered[j + 1] in CONNECTIVES:
                j += 1
            clusters.append((i, j))
            i = j + 1
        else:
            i += 1
    if len(clusters) != 1:
        return
    yield "one_connective"
    start, end = clusters[0]
    before = [t for t in lowered[:start] if t.isalpha() and t not in STOPWORDS]
    if len(before) < 2:
        return
    yield "two_words_before"
    if any(t in PRONOUNS for t in lowered[:start]) or not any(
            t in PRONOUNS for t in lowered[end + 1:]):
        return
    yield "pronoun_after_only"
    yield Candidate(sentence, toks, start, " ".join(toks[start:end + 1]), source)


def person_names() -> frozenset[str]:
    from refbench.tasks.knowref.neutralize import first_name_table

    return frozenset(n.capitalize() for n in first_name_table())


def spacy_stages(doc: Any, cand: Candidate, first_names: frozenset[str]
                 ) -> tuple[list[str], dict[str, Any] | None]:
    """POS/NP stages on a parsed sentence: (stages passed, output record or None)."""
    conn_char = _char_offset(cand.sentence, cand.tokens, cand.connective_at)
    after_text = cand.sentence[conn_char:].lower()
    nps = [nc for nc in doc.noun_chunks
           if nc.end_char <= conn_char and nc.root.pos_ != "PRON"]
    nps = [nc for nc in nps if not re.search(r"(?<![\w])" + re.escape(nc.root.text.lower())
                                             + r"(?![\w])", after_text)]
    if len(nps) != 2:
        return [], None
    passed = ["two_noun_phrases"]
    persons = []
    for nc in nps:
        ent = any(e.label_ == "PERSON" and e.start_char < nc.end_char and
                  e.end_char > nc.start_char for e in doc.ents)
        named = any(t.text in first_names and t.pos_ == "PROPN" for t in nc)
        persons.append(ent or named)
    if not all(persons):
        return passed, None
    passed.append("both_persons")
    pron = next(t for t in doc if t.idx >= conn_char and t.text.lower() in PRONOUNS)
    spaced = " ".join(t.text for t in doc)
    offsets = [t.idx for t in doc]
    k = offsets.index(pron.idx)
    words = [t.text for t in doc]
    words[k] = f"[{words[k]}]"
    record = {
        "sentence_with_pronoun": " ".join(words),
        "candidate0": [_np_text(nps[0])],
        "candidate1": [_np_text(nps[1])],
        "connective": cand.connective,
        "original_sentence": [spaced],
        "source": cand.source,
    }
    return passed, record


def _np_text(nc: Any) -> str:
    """The noun phrase without a leading determiner ("the actor" -> "actor" is not wanted for
    names, so proper-noun phrases keep only their proper nouns)."""
    props = [t.text for t in nc if t.pos_ == "PROPN"]
    return " ".join(props) if props else " ".join(t.text for t in nc)


def _char_offset(sentence: str, toks: list[str], index: int) -> int:
    pos = 0
    for i, t in enumerate(toks):
        pos = sentence.index(t, pos)
        if i == index:
            return pos
        pos += len(t)
    return len(sentence)
