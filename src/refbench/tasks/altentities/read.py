"""AltEntities reader: each referring expression of a question becomes one choice instance.

Input types (the paper's section 5): ``name`` (names only), ``infobox``, ``unshown_background``
(infobox plus sections not shown to raters: the realistic setting) and ``oracle`` (the text shown
to raters; books and recipes only). Long texts are cut to ``max_words`` words the same way for
every model; each instance records whether it was cut.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.invalid import InvalidInstances, parse_each
from refbench.core.io import load_json_list
from refbench.core.records import Record, Where
from refbench.core.types import Candidate, ChoiceInstance

INPUT_TYPES = ("name", "infobox", "unshown_background", "oracle")
DOMAINS = ("BOOKS", "RECIPES", "SONGS")
DEFAULT_MAX_WORDS = 256


def truncate_words(text: str, max_words: int) -> tuple[str, bool]:
    words = text.split()
    if len(words) <= max_words:
        return text, False
    return " ".join(words[:max_words]), True


def question_id(q: dict[str, Any]) -> str:
    key = json.dumps([q.get("domain"), q.get("question"), q.get("target")], ensure_ascii=False)
    return hashlib.sha1(key.encode()).hexdigest()[:12]


TEXT_FIELDS = ("description", "infobox", "unshown_background")


@dataclass(frozen=True)
class Question:
    """One alternative question, its shape checked once, here (reader, check and sampling)."""

    index: int
    item: str
    domain: str
    question: str
    target_index: int
    choices: tuple[dict[str, Any], dict[str, Any]]
    expressions: tuple[str, ...]
    raw: dict[str, Any]

    @property
    def id(self) -> str:
        return question_id(self.raw)


def parse_question(obj: Any, index: int, *, path: str | Path) -> Question:
    where = Where(path, item=f"question {index}")
    q = Record(obj, where)
    text = q.raw("question", "?")
    q = Record(obj, where.with_item(f"question {index}: {str(text)[:60]!r}"))
    domain, question = q.string("domain", nonempty=True), q.string("question")
    choices = q.records("choices")
    if len(choices) != 2:
        raise q.where.error(f"field 'choices': expected exactly two choices, found "
                            f"{len(choices)}")
    for c in choices:
        c.string("name", nonempty=True)
        for key in TEXT_FIELDS:
            c.string(key, None)
    target = q.integer("target_index", min=0, max=1)
    exprs = q.strings("expressions")
    if not exprs or not all(e.strip() for e in exprs):
        raise q.where.error("field 'expressions': expected a non-empty list of non-empty "
                            "strings")
    return Question(index, q.where.item or "", domain.upper(), question, target,
                    (choices[0].obj, choices[1].obj), tuple(e.strip() for e in exprs), obj)


def read_questions(path: str | Path, *, on_invalid: InvalidInstances | None = None
                   ) -> list[Question]:
    """Every question of an AltEntities JSON file (a list of question objects)."""
    raw = load_json_list(path, "questions")
    return list(parse_each(((f"question {i}", (i, q)) for i, q in enumerate(raw)),
                           lambda x: parse_question(x[1], x[0], path=path), on_invalid))


def candidate_text(choice: dict[str, Any], input_type: str) -> str | None:
    if input_type == "name":
        return None
    if input_type == "oracle":
        return str(choice.get("description") or "")
    return str(choice.get(input_type) or "")


def read_altentities(path: str | Path, *, input_type: str = "unshown_background",
                     max_words: int = DEFAULT_MAX_WORDS,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
    if input_type not in INPUT_TYPES:
        raise UsageError(f"unknown input type {input_type!r}; choose from {', '.join(INPUT_TYPES)}")
    if isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 1:
        raise UsageError(f"max_words must be a positive integer, not {max_words!r}")
    for q in read_questions(path, on_invalid=on_invalid):
        if input_type == "oracle" and q.domain == "SONGS":
            raise UsageError(f"{path}: the oracle input type does not exist for SONGS (raters "
                             "saw no description); use name, infobox or unshown_background")
        cands = []
        cut = 0
        for c in q.choices:
            text = candidate_text(c, input_type)
            if text is not None:
                text, was_cut = truncate_words(text, max_words)
                cut += was_cut
            cands.append(Candidate(str(c["name"]), description=text))
        qid = q.id
        for ei, expr in enumerate(q.expressions):
            yield ChoiceInstance(
                id=f"{q.domain.lower()}:{qid}:{ei}", task="altentities",
                context=q.question, expression=expr, candidates=tuple(cands),
                gold=q.target_index,
                metadata={"domain": q.domain, "question_id": qid,
                          "sampling_method": q.raw.get("sampling_method"),
                          "description_section": q.raw.get("description_section"),
                          "input_type": input_type, "truncated": cut,
                          "target": q.raw.get("target")},
            )
