"""Score whole suites: every (variant, entities) subtask of a gold suite against folders of
predictions (one folder per system, any number of runs each), as a paper-style table.

Prediction files are matched by the variant name (or its alias), ``subtask_<n>_ents`` and the
split anywhere in their path below the system folder, e.g. ``c2f/background-train/subtask_2_ents/
test.jsonlines`` or ``c2f/c2f-run1.background-train.subtask_2_ents.test.jsonlines.gz``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.invalid import InvalidInstances
from refbench.core.registry import KITMUS_VARIANTS
from refbench.tasks.kitmus.evaluate import aggregate_runs, score
from refbench.tasks.kitmus.gold import read_gold
from refbench.tasks.kitmus.instance import SUBTASK_DIR
from refbench.tasks.kitmus.predictions import read_predictions

_PRED_EXT = (".jsonlines", ".v4_gold_conll", ".conll", ".tsv", ".jsonl")


def canonical_variant(name: str) -> str:
    try:
        return KITMUS_VARIANTS.canonical(name)
    except UsageError:
        return name


def find_gold(root: Path, split: str) -> dict[tuple[str, int], Path]:
    """Gold file per subtask: native JSONL if present, else full-text then task-text CoNLL."""
    found: dict[tuple[str, int], Path] = {}
    for sub in sorted(p for p in root.rglob("subtask_*_ents") if p.is_dir()):
        m = SUBTASK_DIR.match(sub.name)
        if not m:
            continue
        candidates = [sub / f"{split}.jsonl", sub / f"{split}.jsonl.gz"]
        for view in ("full-text", "task-text-only"):
            candidates += [sub / view / f"{split}.v4_gold_conll",
                           sub / view / f"{split}.v4_gold_conll.gz"]
        gold = next((c for c in candidates if c.is_file()), None)
        if gold is not None:
            found[(canonical_variant(sub.parent.name), int(m.group(1)))] = gold
    if not found:
        raise RefbenchError(f"no gold files for split {split!r} (expected <variant>/subtask_<n>_"
                            "ents/<split>.jsonl or .../full-text/<split>.v4_gold_conll)", path=root)
    return found


def _names_for(variant: str) -> list[str]:
    return [variant, *(a for a, t in KITMUS_VARIANTS.aliases().items() if t == variant)]


def match_predictions(system_dir: Path, variant: str, n: int, split: str) -> list[Path]:
    out = []
    names = _names_for(variant)
    for p in sorted(system_dir.rglob("*")):
        if not p.is_file():
            continue
        base = p.name[:-3] if p.name.endswith(".gz") else p.name
        if not base.endswith(_PRED_EXT):
            continue
        rel = "/" + str(p.relative_to(system_dir)).replace("\\", "/") + "/"
        if f"subtask_{n}_ents" not in rel:
            continue
        if not re.search(rf"[/.:_-]{re.escape(split)}[/.:_-]", rel):
            continue
        if any(re.search(rf"[/.]{re.escape(v)}[/.]", rel) for v in names):
            out.append(p)
    return out


def evaluate_suite(gold_root: str | Path, systems: list[str | Path], *, split: str = "test",
                   bootstrap: int = 200, seed: int = 0,
                   on_invalid: InvalidInstances | None = None) -> dict[str, Any]:
    gold_files = find_gold(Path(gold_root), split)
    cells: list[dict[str, Any]] = []
    random_row: dict[str, float] = {}
    for (variant, n), gold_path in sorted(gold_files.items()):
        gold = list(read_gold(gold_path, on_invalid=on_invalid))
        if not gold:
            raise RefbenchError("the gold holds no instances: nothing to score", path=gold_path)
        random_row[f"{variant}|{n}"] = sum(1 / len(g.candidates) for g in gold) / len(gold)
        for system in systems:
            sdir = Path(system)
            if not sdir.is_dir():
                raise RefbenchError("a system's predictions must be a folder in suite mode",
                                    path=sdir)
            files = match_predictions(sdir, variant, n, split)
            if not files:
                continue
            runs = [score(gold, read_predictions(f), bootstrap=bootstrap, seed=seed)
                    for f in files]
            agg = aggregate_runs(runs)
            cells.append({"system": sdir.name, "variant": variant, "n_entities": n,
                          "gold": str(gold_path), "runs": [str(f) for f in files],
                          "n": runs[0]["n"], "n_missing": max(r["n_missing"] for r in runs),
                          **agg})
    if not cells:
        raise RefbenchError(f"no prediction files matched any gold subtask for split {split!r}",
                            path=str(systems[0]) if systems else None)
    return {"task": "kitmus", "mode": "suite", "split": split, "gold": str(gold_root),
            "systems": [Path(s).name for s in systems], "cells": cells,
            "random_baseline": random_row}
