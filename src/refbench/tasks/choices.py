"""Read any supported file into choice instances; the task is inferred from the content."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.io import open_text
from refbench.core.types import ChoiceInstance

CHOICE_TASKS = ("kitmus", "knowref", "gap", "winograd", "altentities")


def _base(path: Path) -> str:
    name = path.name
    for ext in (".gz", ".bz2"):
        if name.endswith(ext):
            name = name[: -len(ext)]
    return name


def _first_line(path: Path) -> str:
    with open_text(path) as fh:
        for line in fh:
            if line.strip():
                return line
    return ""


def infer_task(path: str | Path) -> str:
    p = Path(path)
    if not p.is_file():
        raise RefbenchError("data file not found", path=p)
    name = _base(p)
    if name.endswith((".v4_gold_conll", ".conll", "_conll")):
        return "kitmus"
    first = _first_line(p)
    if name.endswith(".tsv"):
        cols = first.rstrip("\n").split("\t")
        if "sentence1" in cols and "candidate0" in cols:
            return "knowref"
        if "Pronoun" in cols:
            return "kitmus" if "kitmus/" in _second_line(p) else "gap"
    if name.endswith(".jsonl"):
        try:
            obj = json.loads(first)
        except json.JSONDecodeError:
            raise RefbenchError("invalid JSON", path=p, line=1) from None
        if "option1" in obj:
            return "winograd"
        if "entities" in obj and "sentences" in obj:
            return "kitmus"
    if name.endswith(".json"):
        head = first.lstrip()
        if "sentence_with_pronoun" in _peek(p):
            return "knowref"
        if head.startswith("[") and '"choices"' in _peek(p):
            return "altentities"
    raise UsageError(f"{p}: cannot tell the task from the file; pass --task "
                     f"({', '.join(CHOICE_TASKS)})")


SPLIT_WORDS = {"train": "train", "training": "train", "dev": "dev", "development": "dev",
               "val": "validation", "valid": "validation", "validation": "validation",
               "test": "test"}
# Sets released as one test split, whose files do not say so.
TEST_ONLY = ("wsc273", "wsc285", "wsc")


def infer_split(path: str | Path) -> str | None:
    """The split a data file holds, from its name or its folder (``gap-test.tsv``,
    ``books/test.json.gz``, ``winogrande-dev.jsonl``; WSC273 is a test set); None when
    neither says."""
    p = Path(path)
    if _base(p).split(".")[0].lower() in TEST_ONLY:
        return "test"
    for part in (_base(p), p.parent.name):
        words = [w.lower() for w in re.split(r"[^A-Za-z]+", part) if w]
        found = [SPLIT_WORDS[w] for w in words if w in SPLIT_WORDS]
        if found:
            return found[-1]
    return None


def _second_line(path: Path) -> str:
    with open_text(path) as fh:
        next(fh, "")
        return next(fh, "")


def _peek(path: Path, n: int = 4096) -> str:
    with open_text(path) as fh:
        return fh.read(n)


def read_choices(path: str | Path, *, task: str | None = None,
                 options: dict[str, Any] | None = None) -> Iterator[ChoiceInstance]:
    opts = dict(options or {})
    task = task or infer_task(path)
    if task not in CHOICE_TASKS:
        raise UsageError(f"unknown task {task!r}; choose from {', '.join(CHOICE_TASKS)}")
    name = _base(Path(path))
    if task == "kitmus":
        from refbench.tasks.kitmus.choice import read_kitmus_choices

        yield from read_kitmus_choices(path)
    elif task == "knowref":
        from refbench.tasks.knowref.read import read_knowref_json, read_knowref_tsv

        yield from (read_knowref_tsv(path) if name.endswith(".tsv") else read_knowref_json(path))
    elif task == "gap":
        from refbench.tasks.gap.read import read_gap_choices

        yield from read_gap_choices(path)
    elif task == "winograd":
        from refbench.tasks.winograd.read import read_winograd

        yield from read_winograd(path)
    else:
        from refbench.tasks.altentities.read import read_altentities

        yield from read_altentities(path, **opts)
