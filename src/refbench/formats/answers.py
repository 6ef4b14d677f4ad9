"""refbench answers JSONL: ``{"id", "answer", "scores"}`` per line, as ``refbench run`` writes it.

``answer`` is a candidate index (an integer >= 0, never a boolean), a candidate's name, or null
(no decision); ``scores`` (optional) are finite numbers, one per candidate. Each line's shape is
checked here, once, for every task that reads answers, and an id answered twice is an error.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.inputs import json_type
from refbench.core.io import read_jsonl
from refbench.core.records import Record, Where, check_number


@dataclass(frozen=True)
class AnswerRecord:
    id: str
    answer: int | str | None
    scores: tuple[float, ...] | None
    line: int
    raw: dict[str, Any]


def parse_answer(obj: Any, *, path: str | Path, line: int) -> AnswerRecord:
    rec = Record(obj, Where(path, line))
    item = rec.text("id")
    rec = Record(obj, Where(path, line, item))
    answer = rec.raw("answer")
    if isinstance(answer, bool) or not (answer is None or isinstance(answer, str)
                                        or (isinstance(answer, int) and answer >= 0)):
        raise rec.where.error(f"field 'answer': expected a candidate index (an integer >= 0), "
                              f"a candidate's name or null, found {json_type(answer)}")
    scores = None
    if rec.has("scores"):
        scores = tuple(check_number(x, f"scores[{i}]", rec.where)
                       for i, x in enumerate(rec.items("scores")))
    return AnswerRecord(item, answer, scores, line, obj)


def read_answer_lines(path: str | Path) -> Iterator[AnswerRecord]:
    """Every answer of a file, in order; an id answered twice is an error."""
    first: dict[str, int] = {}
    for line, obj in read_jsonl(path):
        rec = parse_answer(obj, path=path, line=line)
        if rec.id in first:
            raise RefbenchError(f"a second answer for {rec.id!r} (the first is on line "
                                f"{first[rec.id]})", path=path, line=line, item=rec.id)
        first[rec.id] = line
        yield rec


def no_overlap_error(path: str | Path, pred_ids: list[str], gold_ids: list[str],
                     what: str = "gold instance") -> RefbenchError:
    """The error for a prediction file none of whose ids is in the gold (another task's
    predictions, another split, another view): scoring it would report everything missing."""
    if not pred_ids:
        return RefbenchError("the prediction file holds no predictions", path=path)
    return RefbenchError(f"none of the {len(pred_ids)} predictions names a {what} (predictions "
                         f"for another task or data set?): prediction ids look like "
                         f"{pred_ids[0]!r}, gold ids like {gold_ids[0] if gold_ids else None!r}",
                         path=path)
