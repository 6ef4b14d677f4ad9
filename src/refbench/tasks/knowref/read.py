"""KnowRef readers: ``knowref_test.json`` (pronoun in square brackets) and the substitution TSVs
(two rows per instance: the sentence with the pronoun replaced by each candidate)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.inputs import json_type
from refbench.core.invalid import InvalidInstances, reject
from refbench.core.io import load_json_list
from refbench.core.types import Candidate, ChoiceInstance
from refbench.formats.tsv import read_tsv
from refbench.tasks.text_spans import find_spans

_BRACKET = re.compile(r"\[([^\[\]]+)\]")
TSV_COLUMNS = ("index", "sentence1", "sentence2", "label", "candidate0", "candidate1")
BLANK = "_"


def _cand(value: Any, *, path: Path | str, item: str, field: str) -> str:
    text = None
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        text = " ".join(value)
    elif isinstance(value, str):
        text = value
    if text is None or not text.strip():
        raise RefbenchError(f"field {field!r}: expected a name (a non-empty string or list of "
                            f"tokens), found {json_type(value)}", path=path, item=item)
    return text


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


@dataclass(frozen=True)
class JsonRecord:
    """One ``knowref_test.json`` record, its shape checked once, here.

    ``gold`` comes from ``correct_candidate`` (the name), not from ``correct_candidate_idx``:
    the two disagree in 299 of the 1,269 released test instances, and read by hand the name is
    right every time ("Maria admires Samantha, but [she] does consider her to be a wacko"
    names Maria; the index points at Samantha). The index decides only when the name cannot:
    the field is absent, or both candidates are the same string. ``gold_source`` says which.
    """

    index: int
    item: str
    sentence: str
    candidates: tuple[str, str]
    gold: int | None
    gold_source: str  # "name" | "index" | "index (identical candidates)" | "none"
    index_field: int | None  # correct_candidate_idx as released (None when absent)
    original_id: Any


def _gold_index(obj: dict[str, Any], *, path: Path | str, item: str) -> int | None:
    if "correct_candidate_idx" not in obj:
        return None
    value = obj["correct_candidate_idx"]
    if isinstance(value, bool) or value not in (0, 1, "0", "1"):
        raise RefbenchError(f"correct_candidate_idx is {value!r}; expected 0 or 1", path=path,
                            item=item)
    return int(value)


def parse_json_record(obj: Any, index: int, *, path: Path | str) -> JsonRecord:
    """Check a record's shape and resolve its gold answer (see :class:`JsonRecord`)."""
    if not isinstance(obj, dict):
        raise RefbenchError(f"expected a JSON object, found {type(obj).__name__}", path=path,
                            item=f"instance {index}")
    original_id = obj.get("oiginal_id", obj.get("original_id"))
    item = f"instance {index} (original id {original_id if original_id is not None else '?'})"
    for key in ("sentence_with_pronoun", "candidate0", "candidate1"):
        if key not in obj:
            raise RefbenchError(f"missing field {key!r}", path=path, item=item)
    sentence = obj["sentence_with_pronoun"]
    if not isinstance(sentence, str):
        raise RefbenchError(f"field 'sentence_with_pronoun': expected a string, found "
                            f"{json_type(sentence)}", path=path, item=item)
    parse_bracketed(sentence, path=path, item=item)  # the sentence must hold a [pronoun]
    c0 = _cand(obj["candidate0"], path=path, item=item, field="candidate0")
    c1 = _cand(obj["candidate1"], path=path, item=item, field="candidate1")
    by_index = _gold_index(obj, path=path, item=item)
    gold, source = by_index, "index" if by_index is not None else "none"
    if obj.get("correct_candidate") is not None:
        name = _cand(obj["correct_candidate"], path=path, item=item, field="correct_candidate")
        matches = [k for k, c in enumerate((c0, c1)) if c == name]
        if not matches:
            raise RefbenchError(f"correct_candidate {name!r} is neither candidate0 {c0!r} nor "
                                f"candidate1 {c1!r}", path=path, item=item)
        if len(matches) == 1:
            gold, source = matches[0], "name"
        elif by_index is not None:
            source = "index (identical candidates)"
        else:
            raise RefbenchError("the candidates are identical and correct_candidate_idx is "
                                "absent: no gold answer", path=path, item=item)
    if obj.get("refbench_index") is not None:
        value = obj["refbench_index"]
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise RefbenchError(f"field 'refbench_index': expected an integer >= 0 (the "
                                f"record's position in the original file), found "
                                f"{json_type(value)}", path=path, item=item)
        index = value
    return JsonRecord(index, item, sentence, (c0, c1), gold, source, by_index, original_id)


def read_knowref_json(path: str | Path, *, on_invalid: InvalidInstances | None = None
                      ) -> Iterator[ChoiceInstance]:
    """``knowref_test.json`` (and refbench's switched/neutralised copies) as choice instances;
    the gold answer is the one named by ``correct_candidate`` (see :class:`JsonRecord`)."""
    for i, obj in enumerate(load_json_list(path, "instances")):
        try:
            rec = parse_json_record(obj, i, path=path)
        except RefbenchError as exc:
            reject(on_invalid, exc, item=f"instance {i}")
            continue
        text, pronoun, offset, n_brackets = parse_bracketed(rec.sentence, path=path,
                                                            item=rec.item)
        yield ChoiceInstance(
            id=f"knowref:{rec.index}" + (":switched" if obj.get("switched") else ""),
            task="knowref", context=text, expression=pronoun,
            candidates=tuple(Candidate(c, char_spans=find_spans(text, c))
                             for c in rec.candidates),
            gold=rec.gold, expression_offset=offset,
            metadata={"original_id": rec.original_id, "pronoun": pronoun.lower(),
                      "format": "json", "index": rec.index, "bracketed_pronouns": n_brackets,
                      "gold_source": rec.gold_source},
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


@dataclass(frozen=True)
class TsvPair:
    """One instance of a substitution TSV: its two rows, checked once, here."""

    line: int
    index: str
    rows: tuple[dict[str, str], dict[str, str]]
    candidates: tuple[str, str]
    labels: tuple[str, str]
    gold: int | None  # None: labelled 0/0 (the released test.tsv)
    segments: list[str]  # the text around the blank(s)


def parse_tsv_pair(n0: int, r0: dict[str, str], r1: dict[str, str], *,
                   path: Path | str) -> TsvPair:
    if r0["index"] != r1["index"]:
        raise RefbenchError(f"rows must come in pairs with the same index (found "
                            f"{r0['index']!r} then {r1['index']!r})", path=path, line=n0)
    cands = (r0["candidate0"], r0["candidate1"])
    if (r1["candidate0"], r1["candidate1"]) != cands or not all(c.strip() for c in cands):
        raise RefbenchError("both rows of a pair must name the same two non-empty candidates",
                            path=path, line=n0, item=r0["index"])
    labels = (r0["label"].strip(), r1["label"].strip())
    if labels not in (("1", "0"), ("0", "1"), ("0", "0")):
        raise RefbenchError(f"a pair needs labels 1/0, 0/1 or 0/0 (no gold), found {labels}",
                            path=path, line=n0, item=r0["index"])
    gold = 0 if labels[0] == "1" else 1 if labels[1] == "1" else None
    segments = tsv_pair_context(r0, r1, path=path, line=n0)
    return TsvPair(n0, r0["index"], (r0, r1), cands, labels, gold, segments)


def read_tsv_pairs(path: str | Path, *, on_invalid: InvalidInstances | None = None
                   ) -> tuple[list[str], list[TsvPair]]:
    """(header, pairs) of a substitution TSV; a malformed pair is an error, or with
    ``on_invalid`` (``--skip-invalid``) skipped and recorded."""
    header, rows = read_tsv(path, required=TSV_COLUMNS, what="KnowRef TSV",
                            on_invalid=on_invalid)
    pairs = []
    k = 0
    while k < len(rows):
        n0, r0 = rows[k]
        if k + 1 >= len(rows):
            reject(on_invalid, RefbenchError("the last row has no partner: rows must come in "
                                             "pairs with the same index", path=path, line=n0),
                   item=r0["index"])
            break
        try:
            pairs.append(parse_tsv_pair(n0, r0, rows[k + 1][1], path=path))
        except RefbenchError as exc:
            reject(on_invalid, exc, item=r0["index"])
            k += 1 if rows[k + 1][1]["index"] != r0["index"] else 2  # resynchronise
            continue
        k += 2
    return header, pairs


def read_knowref_tsv(path: str | Path, *, on_invalid: InvalidInstances | None = None
                     ) -> Iterator[ChoiceInstance]:
    """Pairs of rows sharing an index; the pronoun is gone from this format, so the expression
    is a blank ``_`` where the candidates were substituted. A pair labelled 0/0 (the released
    test.tsv) has no gold answer."""
    for pair in read_tsv_pairs(path, on_invalid=on_invalid)[1]:
        segments = pair.segments
        before = f"{segments[0]} " if segments[0] else ""
        context = " ".join(x for x in (segments[0], *(f"{BLANK} {seg}".rstrip()
                                                     for seg in segments[1:])) if x)
        yield ChoiceInstance(
            id=f"knowref-tsv:{pair.index}", task="knowref",
            context=context, expression=BLANK,
            candidates=tuple(Candidate(c, char_spans=find_spans(context, c))
                             for c in pair.candidates),
            gold=pair.gold, expression_offset=len(before),
            metadata={"index": pair.index, "format": "tsv", "line": pair.line,
                      "blanks": len(segments) - 1},
        )


def absent_candidates_warning(instances: Sequence[ChoiceInstance]) -> str | None:
    """A warning when candidates do not occur as whole words in their text (the release has
    a few: a name misspelt or replaced inside another name). Such instances are scored, but a
    model that reads where the candidates are cannot find them, so the count is reported."""
    ids = [i.id for i in instances if any(not c.char_spans for c in i.candidates)]
    if not ids:
        return None
    return (f"{len(ids)} instance(s) name a candidate that does not occur as whole words in "
            f"the text ({', '.join(ids[:5])}{' ...' if len(ids) > 5 else ''}); see "
            "refbench knowref check")


def read_knowref(path: str | Path, *, on_invalid: InvalidInstances | None = None
                 ) -> Iterator[ChoiceInstance]:
    """Either release format: the bracketed JSON (``knowref_test.json``) or a substitution
    TSV, by the file's name."""
    from refbench.core.inputs import check_input_file, format_name

    p = check_input_file(path, what="KnowRef file")
    reader = read_knowref_tsv if format_name(p).endswith(".tsv") else read_knowref_json
    return reader(p, on_invalid=on_invalid)
