"""Winograd-style JSONL (WSC273, WinoGrande): a sentence with ``_``, two options, answer 1/2."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refbench.core.inputs import parse_jsonl
from refbench.core.invalid import InvalidInstances
from refbench.core.records import Record, Where
from refbench.core.types import Candidate, ChoiceInstance
from refbench.tasks.text_spans import find_spans


def winograd_instance(obj: dict[str, Any], *, path: Path | str, line: int) -> ChoiceInstance:
    """One line, checked: a sentence with exactly one ``_``, two options, answer 1, 2 or none."""
    rec = Record(obj, Where(path, line))
    qid = rec.text("qID", f"line{line}")
    rec = Record(obj, Where(path, line, qid))
    sentence, o1, o2 = (rec.string(k, nonempty=True) for k in ("sentence", "option1", "option2"))
    if sentence.count("_") != 1:
        raise rec.where.error(f"the sentence needs exactly one '_', found {sentence.count('_')}")
    answer = rec.raw("answer", "")
    if isinstance(answer, bool) or str(answer).strip() not in ("1", "2", ""):
        raise rec.where.error(f"field 'answer': expected 1 or 2, found {answer!r}")
    answer = str(answer).strip()
    return ChoiceInstance(
        id=qid, task="winograd", context=sentence, expression="_",
        candidates=tuple(Candidate(o, char_spans=find_spans(sentence, o)) for o in (o1, o2)),
        gold=int(answer) - 1 if answer else None, expression_offset=sentence.index("_"),
        metadata={"source": Path(path).name.split(".")[0]},
    )


def read_winograd(path: str | Path, *, on_invalid: InvalidInstances | None = None
                  ) -> Iterator[ChoiceInstance]:
    yield from parse_jsonl(path, lambda obj, line: winograd_instance(obj, path=path, line=line),
                           on_invalid=on_invalid, id_key="qID")
