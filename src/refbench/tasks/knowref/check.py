"""``refbench knowref check``: what a KnowRef file holds and where the release contradicts itself.

For ``knowref_test.json`` and refbench's JSON copies: instances, pronouns, the gold answer's two
fields (``correct_candidate_idx`` and ``correct_candidate``) and every instance where they
disagree (refbench takes the name; see :class:`refbench.tasks.knowref.read.JsonRecord`),
identical candidates, more than one bracketed pronoun, candidates that do not occur as whole
words in the sentence. For the substitution TSVs: pairs, labelled and unlabelled pairs, pairs with
more than one blank, candidates absent from the text. Counts are compared with the published
ones where the file is a known release file.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from refbench.core.io import load_json_list
from refbench.tasks.knowref.read import parse_bracketed, parse_json_record, read_knowref_tsv
from refbench.tasks.text_spans import find_spans

# Published sizes of the released files (KnowRef paper, section 3; the benchmarks copy).
PUBLISHED = {"knowref_test.json": 1269, "test.tsv": 1269, "train.tsv": 5219, "dev.tsv": 2236}
EXAMPLES = 10  # instances quoted per finding in the text report (all ids are in --json)


def _base(path: Path) -> str:
    return path.name[:-3] if path.name.endswith(".gz") else path.name


def _published(path: Path, n: int) -> dict[str, Any] | None:
    expected = PUBLISHED.get(_base(path))
    return None if expected is None else {"expected": expected, "found": n, "ok": n == expected}


def check_json(path: Path) -> dict[str, Any]:
    records = load_json_list(path, "instances")
    disagree: list[dict[str, Any]] = []
    identical: list[int] = []
    brackets: list[int] = []
    absent: list[dict[str, Any]] = []
    pronouns: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    for i, obj in enumerate(records):
        rec = parse_json_record(obj, i, path=path)
        text, pronoun, _, n_brackets = parse_bracketed(rec.sentence, path=path, item=rec.item)
        pronouns[pronoun.lower()] += 1
        sources[rec.gold_source] += 1
        if rec.index_field is not None and rec.gold is not None and rec.index_field != rec.gold:
            disagree.append({"index": rec.index, "original_id": rec.original_id,
                             "correct_candidate_idx": rec.index_field,
                             "correct_candidate": rec.candidates[rec.gold],
                             "index_names": rec.candidates[rec.index_field],
                             "gold": rec.gold, "sentence": rec.sentence})
        if rec.candidates[0] == rec.candidates[1]:
            identical.append(rec.index)
        if n_brackets > 1:
            brackets.append(rec.index)
        for k, cand in enumerate(rec.candidates):
            if not find_spans(text, cand):
                absent.append({"index": rec.index, "candidate": k, "text": cand})
    return {
        "file": str(path), "format": "json", "instances": len(records),
        "published": _published(path, len(records)),
        "pronouns": dict(pronouns.most_common()),
        "gold_source": dict(sorted(sources.items())),
        "gold_disagreements": len(disagree), "gold_disagreement_instances": disagree,
        "identical_candidates": identical, "several_bracketed_pronouns": brackets,
        "candidates_not_in_sentence": absent,
    }


def check_tsv(path: Path) -> dict[str, Any]:
    pairs = 0
    unlabelled: list[str] = []
    blanks: list[str] = []
    absent: list[dict[str, Any]] = []
    for inst in read_knowref_tsv(path):
        pairs += 1
        index = str(inst.metadata["index"])
        if inst.gold is None:
            unlabelled.append(index)
        if inst.metadata["blanks"] > 1:
            blanks.append(index)
        for k, cand in enumerate(inst.candidates):
            if not cand.char_spans:
                absent.append({"index": index, "candidate": k, "text": cand.text})
    return {
        "file": str(path), "format": "tsv", "instances": pairs,
        "published": _published(path, pairs),
        "labelled": pairs - len(unlabelled), "unlabelled": len(unlabelled),
        "unlabelled_instances": unlabelled if len(unlabelled) < pairs else "all",
        "several_blanks": blanks, "candidates_not_in_text": absent,
    }


def check_files(paths: list[Path]) -> dict[str, Any]:
    files = [check_tsv(p) if _base(p).endswith(".tsv") else check_json(p) for p in paths]
    problems = sum(f.get("gold_disagreements", 0) for f in files)
    mismatched = [f["file"] for f in files if f["published"] and not f["published"]["ok"]]
    return {"files": files, "gold_disagreements": problems,
            "counts_differ_from_published": mismatched}
