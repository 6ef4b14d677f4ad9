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
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.io import load_json_list
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


def candidate_text(choice: dict[str, Any], input_type: str) -> str | None:
    if input_type == "name":
        return None
    if input_type == "oracle":
        return str(choice.get("description", ""))
    return str(choice.get(input_type, ""))


def read_altentities(path: str | Path, *, input_type: str = "unshown_background",
                     max_words: int = DEFAULT_MAX_WORDS) -> Iterator[ChoiceInstance]:
    if input_type not in INPUT_TYPES:
        raise UsageError(f"unknown input type {input_type!r}; choose from {', '.join(INPUT_TYPES)}")
    for qi, q in enumerate(load_json_list(path, "questions")):
        where = f"question {qi}: {str(q.get('question', '?'))[:60]!r}" if isinstance(q, dict) \
            else f"question {qi}"
        if not isinstance(q, dict):
            raise RefbenchError("a question must be a JSON object", path=path, item=where)
        missing = [k for k in ("domain", "question", "target_index", "choices", "expressions")
                   if k not in q]
        if missing:
            raise RefbenchError(f"missing field(s) {', '.join(missing)}", path=path, item=where)
        choices, exprs = q["choices"], q["expressions"]
        if not isinstance(choices, list) or len(choices) != 2:
            raise RefbenchError("expected exactly two choices", path=path, item=where)
        target = q["target_index"]
        if not isinstance(target, int) or not 0 <= target < len(choices):
            raise RefbenchError(f"target_index {target!r} is outside the {len(choices)} choices",
                                path=path, item=where)
        if not isinstance(exprs, list) or not exprs:
            raise RefbenchError("the expression list is empty", path=path, item=where)
        domain = str(q["domain"]).upper()
        if input_type == "oracle" and domain == "SONGS":
            raise UsageError(f"{path}: the oracle input type does not exist for SONGS (raters "
                             "saw no description); use name, infobox or unshown_background")
        cands = []
        cut = 0
        for c in choices:
            if not isinstance(c, dict) or "name" not in c:
                raise RefbenchError("each choice needs a 'name'", path=path, item=where)
            text = candidate_text(c, input_type)
            if text is not None:
                text, was_cut = truncate_words(text, max_words)
                cut += was_cut
            cands.append(Candidate(str(c["name"]), description=text))
        qid = question_id(q)
        for ei, expr in enumerate(exprs):
            if not isinstance(expr, str) or not expr.strip():
                raise RefbenchError(f"expression {ei} is empty", path=path, item=where)
            yield ChoiceInstance(
                id=f"{domain.lower()}:{qid}:{ei}", task="altentities",
                context=str(q["question"]), expression=expr.strip(), candidates=tuple(cands),
                gold=target,
                metadata={"domain": domain, "question_id": qid,
                          "sampling_method": q.get("sampling_method"),
                          "description_section": q.get("description_section"),
                          "input_type": input_type, "truncated": cut,
                          "target": q.get("target")},
            )
