"""KnowRef readers: ``knowref_test.json`` (pronoun in square brackets) and the substitution TSVs
(two rows per instance: the sentence with the pronoun replaced by each candidate)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import load_json_list
from refbench.core.types import Candidate, ChoiceInstance
from refbench.formats.tsv import read_tsv
from refbench.tasks.text_spans import find_spans

_BRACKET = re.compile(r"\[([^\[\]]+)\]")
TSV_COLUMNS = ("index", "sentence1", "sentence2", "label", "candidate0", "candidate1")
BLANK = "_"


def _cand(value: Any, *, path: Path | str, item: str, field: str) -> str:
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return " ".join(value)
    if isinstance(value, str):
        return value
    raise RefbenchError(f"{field} must be a string or a list of tokens", path=path, item=item)


def parse_bracketed(sentence: str, *, path: Path | str, item: str) -> tuple[str, str, int, int]:
    """Remove the brackets: (sentence, pronoun, offset of the pronoun, number of brackets).

    The release has one instance with two bracketed pronouns; the first is taken as the target
    and the count is reported, rather than rejecting the file.
    """
    found = list(_BRACKET.finditer(sentence))
    if not found:
        raise RefbenchError("no [pronoun] in sentence_with_pronoun", path=path, item=item)
    m = found[0]
    text = _BRACKET.sub(lambda x: x.group(1), sentence)
    return text, m.group(1), m.start(), len(found)


def read_knowref_json(path: str | Path) -> Iterator[ChoiceInstance]:
    for i, obj in enumerate(load_json_list(path, "instances")):
        item = f"instance {i} (original id {obj.get('oiginal_id', obj.get('original_id', '?'))})"
        try:
            sentence = obj["sentence_with_pronoun"]
            c0 = _cand(obj["candidate0"], path=path, item=item, field="candidate0")
            c1 = _cand(obj["candidate1"], path=path, item=item, field="candidate1")
            gold = int(obj["correct_candidate_idx"])
        except (KeyError, TypeError, ValueError) as exc:
            raise RefbenchError(f"missing or bad field {exc}", path=path, item=item) from None
        if gold not in (0, 1):
            raise RefbenchError(f"correct_candidate_idx {gold} is not 0 or 1", path=path,
                                item=item)
        text, pronoun, offset, n_brackets = parse_bracketed(sentence, path=path, item=item)
        index = int(obj.get("refbench_index", i))
        yield ChoiceInstance(
            id=f"knowref:{index}" + (":switched" if obj.get("switched") else ""),
            task="knowref", context=text, expression=pronoun,
            candidates=tuple(Candidate(c, char_spans=find_spans(text, c)) for c in (c0, c1)),
            gold=gold, expression_offset=offset,
            metadata={"original_id": obj.get("oiginal_id", obj.get("original_id")),
                      "pronoun": pronoun.lower(), "format": "json", "index": index,
                      "bracketed_pronouns": n_brackets},
        )


def tsv_pair_context(r0: dict[str, str], r1: dict[str, str], *, path: Path | str,
                     line: int) -> list[str]:
    """The text around the blank(s) of a row pair, as segments between blanks.

    Each row's full sentence is ``sentence1 + " " + sentence2``; where the release splits the
    two varies (after the substituted candidate, or after its first mention), so blanks are
    found where the two full sentences differ: candidate0 in the first, candidate1 in the
    second. One release instance has two blanks (its JSON has two bracketed pronouns).
    """
    t0, t1 = r0["candidate0"].split(), r0["candidate1"].split()
    if t0 == t1:  # identical candidates: the rows cannot differ; trust the first row's split
        s1 = r0["sentence1"].split()
        if s1[len(s1) - len(t0):] != t0:
            raise RefbenchError("identical candidates and sentence1 does not end with one",
                                path=path, line=line)
        return [" ".join(s1[:len(s1) - len(t0)]), r0["sentence2"].strip()]
    full0 = f"{r0['sentence1']} {r0['sentence2']}".split()
    full1 = f"{r1['sentence1']} {r1['sentence2']}".split()

    @cache
    def align(i: int, j: int) -> tuple[tuple[str, ...], ...] | None:
        """Segments of the rest of both rows from (i, j), or None if they cannot align."""
        if i == len(full0) and j == len(full1):
            return ((),)
        options = []
        if i < len(full0) and j < len(full1) and full0[i] == full1[j]:
            options.append(("same", i + 1, j + 1))
        if full0[i:i + len(t0)] == t0 and full1[j:j + len(t1)] == t1:
            options.append(("blank", i + len(t0), j + len(t1)))
        for kind, ni, nj in options:
            rest = align(ni, nj)
            if rest is None:
                continue
            if kind == "blank":
                return ((), *rest)
            return ((full0[i], *rest[0]), *rest[1:])
        return None

    found = align(0, 0)
    if found is None:
        raise RefbenchError("the two rows must differ only where candidate0 / candidate1 "
                            "fill the blank", path=path, line=line)
    segments = [list(seg) for seg in found]
    if len(segments) < 2:
        raise RefbenchError("the two rows are identical: no blank", path=path, line=line)
    return [" ".join(seg) for seg in segments]


def read_knowref_tsv(path: str | Path) -> Iterator[ChoiceInstance]:
    """Pairs of rows sharing an index; the pronoun is gone from this format, so the expression
    is a blank ``_`` where the candidates were substituted. A pair labelled 0/0 (the released
    test.tsv) has no gold answer."""
    _, rows = read_tsv(path, required=TSV_COLUMNS, what="KnowRef TSV")
    for k in range(0, len(rows), 2):
        if k + 1 >= len(rows) or rows[k][1]["index"] != rows[k + 1][1]["index"]:
            raise RefbenchError("rows must come in pairs with the same index", path=path,
                                line=rows[k][0])
        (n0, r0), (_, r1) = rows[k], rows[k + 1]
        cands = (r0["candidate0"], r0["candidate1"])
        labels = (r0["label"].strip(), r1["label"].strip())
        if labels not in (("1", "0"), ("0", "1"), ("0", "0")):
            raise RefbenchError(f"a pair needs labels 1/0, 0/1 or 0/0 (no gold), found {labels}",
                                path=path, line=n0)
        gold = 0 if labels[0] == "1" else 1 if labels[1] == "1" else None
        segments = tsv_pair_context(r0, r1, path=path, line=n0)
        before = f"{segments[0]} " if segments[0] else ""
        context = " ".join(x for x in (segments[0], *(f"{BLANK} {seg}".rstrip()
                                                     for seg in segments[1:])) if x)
        yield ChoiceInstance(
            id=f"knowref-tsv:{r0['index']}", task="knowref",
            context=context, expression=BLANK,
            candidates=tuple(Candidate(c, char_spans=find_spans(context, c)) for c in cands),
            gold=gold, expression_offset=len(before),
            metadata={"index": r0["index"], "format": "tsv", "line": n0,
                      "blanks": len(segments) - 1},
        )
