"""The source records of chosen instances, copied verbatim from their files.

Why: the native export of a KITMUS validation writes the items people saw as a gold file in the
format they came from (a CoNLL document, a native JSONL line, a GAP row), so ``refbench run``
and ``refbench evaluate --task kitmus`` score models and annotators on exactly those items.
Copying the bytes, rather than re-serialising what a reader returned, keeps every field the
scorer needs. Records are matched by instance key (the id without its view segment), so an
instance read from the full text can be found in the task-text-only file beside it: the
without-knowledge items are exported as the annotators saw them.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from refbench.core.inputs import format_name
from refbench.core.io import read_lines
from refbench.metrics.agreement import majority
from refbench.studyfile.db import Item
from refbench.tasks.kitmus.score.gold import instance_key

_BEGIN = re.compile(r"^#begin document \((.*)\); part (\d+)\s*$")
FORMATS = {"conll": "v4_gold_conll", "jsonl": "jsonl", "tsv": "tsv"}


def record_format(path: Path) -> str | None:
    name = format_name(path)
    if name.endswith((".v4_gold_conll", ".conll", "_conll")):
        return "conll"
    if name.endswith(".jsonl"):
        return "jsonl"
    if name.endswith(".tsv"):
        return "tsv"
    return None


def _conll(path: Path, ids: set[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    current: list[str] | None = None
    doc_id = ""
    for _, line in read_lines(path):
        m = _BEGIN.match(line)
        if m:
            doc_id = instance_key(m.group(1))
            current = [line] if doc_id in ids else None
        elif current is not None:
            current.append(line)
            if line.startswith("#end document"):
                out[doc_id] = "\n".join(current) + "\n"
                current = None
    return out


def _jsonl(path: Path, ids: set[str]) -> dict[str, str]:
    out = {}
    for _, line in read_lines(path):
        if line.strip():
            obj = json.loads(line)
            if isinstance(obj, dict) and instance_key(str(obj.get("id"))) in ids:
                out[instance_key(str(obj["id"]))] = line + "\n"
    return out


def _tsv(path: Path, ids: set[str]) -> dict[str, str]:
    out = {}
    header = ""
    for number, line in read_lines(path):
        if number == 1:
            header = line + "\n"
            continue
        first = instance_key(line.split("\t", 1)[0].strip('"'))
        if first in ids:
            out[first] = header + line + "\n"
    return out


def task_text_sibling(path: Path) -> Path | None:
    """The task-text-only CoNLL file of the same subtask and split, where the suite has one
    (``<sub>/full-text/<split>.v4_gold_conll[.gz]`` or refbench's ``<sub>/<split>.jsonl``)."""
    name = format_name(path)
    split = name.split(".")[0]
    folder = path.parent.parent if path.parent.name == "full-text" else path.parent
    for cand in (folder / "task-text-only" / f"{split}.v4_gold_conll",
                 folder / "task-text-only" / f"{split}.v4_gold_conll.gz"):
        if cand.is_file():
            return cand
    return None


def source_records(wanted: Iterable[tuple[Path, str]]) -> dict[tuple[Path, str], str]:
    """{(file, instance key): the record's text} for files in a format that has records
    (CoNLL: the whole document; JSONL: the line; TSV: the header and the row)."""
    by_file: dict[Path, set[str]] = defaultdict(set)
    for path, doc_id in wanted:
        by_file[path].add(doc_id)
    out: dict[tuple[Path, str], str] = {}
    for path, ids in sorted(by_file.items()):
        fmt = record_format(path)
        found = {"conll": _conll, "jsonl": _jsonl, "tsv": _tsv}[fmt](path, ids) if fmt else {}
        out.update({(path, k): v for k, v in found.items()})
    return out


def native_files(items: list[Item], answers: dict[str, dict[str, dict[str, Any]]], out: Path,
                 label_of: Callable[[Item, int | None], str]) -> dict[Path, str]:
    """The native export of a validation study (see ``KitmusValidation.native``)."""

    groups: dict[tuple[str, str], list[Item]] = defaultdict(list)
    for it in items:
        groups[("gold-checks" if it.gold_check else it.condition,
                it.payload.get("format") or "none")].append(it)
    formats_per_group = defaultdict(set)
    for group, fmt in groups:
        formats_per_group[group].add(fmt)
    files: dict[Path, str] = {}
    for (group, fmt), members in sorted(groups.items()):
        folder = out / (group if len(formats_per_group[group]) == 1 else f"{group}-{fmt}")
        if fmt in FORMATS and all(it.payload.get("record") for it in members):
            files[folder / f"gold.{FORMATS[fmt]}"] = "".join(it.payload["record"]
                                                             for it in members)
        ratings = []
        for name, by_item in sorted(answers.items()):
            lines = []
            for it in members:
                if "" in by_item.get(it.id, {}):
                    choice = by_item[it.id][""]["choice"]
                    lines.append(json.dumps({"id": it.payload["source_id"], "answer": choice}) +
                                 "\n")
                    ratings.append((it.id, name, label_of(it, choice)))
            if lines:
                files[folder / f"{name}.jsonl"] = "".join(lines)
        votes = majority(ratings)
        lines = []
        for it in members:
            if votes.get(it.id) is not None:
                names = it.payload["candidates"]
                label = votes[it.id]
                answer = names.index(label) if label in names else None
                lines.append(json.dumps({"id": it.payload["source_id"], "answer": answer}) + "\n")
        if lines:
            files[folder / "majority.jsonl"] = "".join(lines)
    return files
