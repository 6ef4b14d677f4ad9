"""Antecedent switching: swap the two candidates everywhere in a sentence; the answer flips.

Matching is on whole tokens only (sentences are space-tokenised): multi-token names match as
token sequences, the longer candidate first where one contains the other ("Leon Gambetta" /
"Gambetta"), possessives stay attached ("Johnson 's" -> "Seymour 's"), and names that contain
each other as strings ("Marc" / "Marcus") never interfere. An instance is *not* switched, but
listed with the reason, when a candidate does not occur as whole tokens or also occurs glued to
other characters ("Johnson's"), since swapping it there would mangle the text.

Candidates keep their identity: candidate0 stays the same name, and ``correct_candidate_idx``
flips, so a model that reads the context changes its answer index on the switched copy.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import atomic_write, format_name, load_json_list
from refbench.tasks.capabilities import Training
from refbench.tasks.knowref.read import TsvPair, parse_json_record, read_tsv_pairs


@dataclass(frozen=True)
class SwitchResult:
    text: str | None
    reason: str | None = None


def _tokens(name: str) -> list[str]:
    return name.split()


def swap_tokens(tokens: Sequence[str], a: str, b: str) -> tuple[list[str], int, int]:
    """Swap whole-token occurrences of ``a`` and ``b``; returns (tokens, count a, count b)."""
    ta, tb = _tokens(a), _tokens(b)
    order = sorted([(ta, tb, "a"), (tb, ta, "b")], key=lambda x: -len(x[0]))
    out: list[str] = []
    counts = {"a": 0, "b": 0}
    i = 0
    while i < len(tokens):
        for needle, repl, which in order:
            if needle and list(tokens[i:i + len(needle)]) == needle:
                out.extend(repl)
                counts[which] += 1
                i += len(needle)
                break
        else:
            out.append(tokens[i])
            i += 1
    return out, counts["a"], counts["b"]


def _glued(tokens: Sequence[str], a: str, b: str) -> str | None:
    """A candidate that still occurs once its whole-token mentions are masked: it is glued to
    other characters somewhere (e.g. "Johnson's"), so swapping would mangle the text."""
    rest = " ".join(_mask(tokens, a, b))
    for name in (a, b):
        if re.search(r"(?<![\w])" + re.escape(name) + r"(?![\w])", rest):
            return name
    return None


def _mask(tokens: Sequence[str], a: str, b: str) -> list[str]:
    """Tokens with every whole-token occurrence of ``a`` or ``b`` replaced by a mask token."""
    ta, tb = _tokens(a), _tokens(b)
    needles = sorted([ta, tb], key=len, reverse=True)
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for needle in needles:
            if needle and list(tokens[i:i + len(needle)]) == needle:
                out.append("\x00")
                i += len(needle)
                break
        else:
            out.append(tokens[i])
            i += 1
    return out


def switch_text(text: str, a: str, b: str, *, keep: Sequence[str] = ()) -> SwitchResult:
    """Switch ``a`` and ``b`` in a space-tokenised text; ``keep`` tokens are left alone."""
    if a == b:
        return SwitchResult(None, "the two candidates are identical")
    tokens = text.split(" ")
    out, na, nb = swap_tokens(tokens, a, b)
    if na == 0 or nb == 0:
        missing = a if na == 0 else b
        return SwitchResult(None, f"{missing!r} does not occur as whole tokens")
    glued = _glued(tokens, a, b)
    if glued is not None:
        return SwitchResult(None, f"{glued!r} also occurs glued to other characters")
    return SwitchResult(" ".join(out))


def switch_json_record(obj: dict[str, Any], index: int, *, path: Path | str = "<json>"
                       ) -> tuple[dict[str, Any] | None, str | None]:
    """The switched record, or None and the reason. The switched gold is the other candidate
    of the record's gold, which comes from the name (``parse_json_record``); both gold fields
    of the output agree."""
    rec = parse_json_record(obj, index, path=path)  # checks the [pronoun] too
    c0, c1 = rec.candidates
    res = switch_text(rec.sentence, c0, c1)
    if res.text is None:
        return None, res.reason
    new = copy.deepcopy(obj)
    new["sentence_with_pronoun"] = res.text
    if (isinstance(obj.get("original_sentence"), list) and obj["original_sentence"]
            and isinstance(obj["original_sentence"][0], str)):
        orig = switch_text(obj["original_sentence"][0], c0, c1)
        if orig.text is not None:
            new["original_sentence"] = [orig.text]
    if rec.gold is None:
        raise RefbenchError("no gold answer (correct_candidate / correct_candidate_idx)",
                            path=path, item=rec.item)
    gold = 1 - rec.gold
    new["correct_candidate_idx"] = gold
    new["correct_candidate"] = copy.deepcopy(obj["candidate1" if gold == 1 else "candidate0"])
    new["refbench_index"] = rec.index
    new["switched"] = not obj.get("switched", False)
    return new, None


def switch_tsv_pair(pair: TsvPair
                    ) -> tuple[tuple[dict[str, str], dict[str, str]] | None, str | None]:
    """Switch the names around the blank; row k keeps candidate k at the blank, labels flip.
    Rows are written split right after the blank's candidate."""
    r0, r1 = pair.rows
    c0, c1 = pair.candidates
    res = switch_text(" \x00 ".join(pair.segments).strip(), c0, c1)
    if res.text is None:
        return None, res.reason
    parts = [p.strip() for p in res.text.split("\x00")]
    flipped = {("1", "0"): ("0", "1"), ("0", "1"): ("1", "0")}.get(pair.labels, pair.labels)
    rows = []
    for k, (row, cand) in enumerate(((r0, c0), (r1, c1))):
        # every blank holds this row's candidate; the row is split right after the first
        rows.append({**row, "sentence1": f"{parts[0]} {cand}".strip(),
                     "sentence2": f" {cand} ".join(parts[1:]).strip(), "label": flipped[k]})
    return (rows[0], rows[1]), None


def switch_file(src: str | Path, dst: str | Path, *, with_original: bool = False
                ) -> dict[str, Any]:
    """Write the switched copy (or original + switched) of a JSON or TSV file."""
    src, dst = Path(src), Path(dst)
    name = same_format_output(src, dst, (".json", ".tsv"))
    skipped: list[dict[str, Any]] = []
    n_out = 0
    if name.endswith(".json"):
        data = load_json_list(src, "instances")
        out = []
        for i, obj in enumerate(data):
            parse_json_record(obj, i, path=src)  # a record's shape first, then its index
            if "refbench_index" not in obj:
                obj = {**obj, "refbench_index": i}
            new, reason = switch_json_record(obj, i, path=src)
            if with_original:
                out.append(obj)
            if new is None:
                skipped.append({"index": i, "reason": reason})
            else:
                out.append(new)
                n_out += 1
        with atomic_write(dst) as fh:
            json.dump(out, fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        total = len(data)
    else:
        header, pairs = read_tsv_pairs(src)
        lines = ["\t".join(header)]
        total = len(pairs)
        for pair in pairs:
            rows, reason = switch_tsv_pair(pair)
            if with_original:
                lines += ["\t".join(r[c] for c in header) for r in pair.rows]
            if rows is None:
                skipped.append({"index": pair.index, "line": pair.line, "reason": reason})
            else:
                lines += ["\t".join(r[c] for c in header) for r in rows]
                n_out += 1
        with atomic_write(dst) as fh:
            fh.write("\n".join(lines) + "\n")
    return {"input": str(src), "output": str(dst), "instances": total, "switched": n_out,
            "skipped": len(skipped), "skipped_instances": skipped,
            "with_original": with_original}


def same_format_output(src: Path, dst: Path, formats: tuple[str, ...]) -> str:
    """The input's format (its extension without ``.gz``), once the output is known to be
    named for the same format: JSON in, JSON out; a JSON file named ``.tsv`` is never written."""
    def ext(p: Path) -> str:
        return next((f for f in formats if format_name(p).endswith(f)), "")

    kind = ext(src)
    if not kind:
        raise RefbenchError(f"expected a {' or '.join(formats)} file", path=src)
    if ext(dst) != kind:
        raise RefbenchError(f"the output must be a {kind} file like the input (name it "
                            f"*{kind})", path=dst)
    return format_name(src)


class KnowRefTraining(Training):
    """``refbench train --augment``: every training instance and its switched copy."""

    augmentation = "antecedent-switched copies"

    def augmented_file(self, path: Path, *, work: Path) -> Path:
        suffix = ".json" if format_name(path).endswith(".json") else ".tsv"
        work.mkdir(parents=True, exist_ok=True)
        dst = work / f"train.augmented{suffix}"
        switch_file(path, dst, with_original=True)
        return dst
