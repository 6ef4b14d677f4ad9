"""Winograd-style JSONL (WSC273, WinoGrande): a sentence with ``_``, two options, answer 1/2."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from refbench.core.errors import RefbenchError
from refbench.core.io import read_jsonl
from refbench.core.types import Candidate, ChoiceInstance
from refbench.tasks.text_spans import find_spans


def read_winograd(path: str | Path) -> Iterator[ChoiceInstance]:
    for line, obj in read_jsonl(path):
        qid = str(obj.get("qID", f"line{line}"))
        try:
            sentence, o1, o2 = str(obj["sentence"]), str(obj["option1"]), str(obj["option2"])
        except KeyError as exc:
            raise RefbenchError(f"missing field {exc}", path=path, line=line, item=qid) from None
        if sentence.count("_") != 1:
            raise RefbenchError(f"the sentence needs exactly one '_', found "
                                f"{sentence.count('_')}", path=path, line=line, item=qid)
        answer = str(obj.get("answer", "")).strip()
        if answer not in ("1", "2", ""):
            raise RefbenchError(f"answer must be 1 or 2, found {answer!r}", path=path, line=line,
                                item=qid)
        yield ChoiceInstance(
            id=qid, task="winograd", context=sentence, expression="_",
            candidates=tuple(Candidate(o, char_spans=find_spans(sentence, o)) for o in (o1, o2)),
            gold=int(answer) - 1 if answer else None, expression_offset=sentence.index("_"),
            metadata={"source": Path(path).name.split(".")[0]},
        )
