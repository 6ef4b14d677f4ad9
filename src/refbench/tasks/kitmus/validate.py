"""Re-check a KITMUS suite, refbench's or the official release.

Checks: (1) every format and view names the same answer for every instance (native JSONL,
CoNLL full-text and task-text-only, e2e jsonlines, GAP TSV), knowledge-text-only views name the
same entities; (2) each document's annotation is well formed (the pronoun in exactly one
cluster, holding exactly one entity); (3) train/validation/test share no names (and, with native
files, no occupations, locations, templates or noise); (4) answer positions are balanced.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.errors import RefbenchError
from refbench.formats.conll2012 import read_conll
from refbench.formats.e2e_jsonlines import read_jsonlines
from refbench.formats.gap_tsv import read_gap
from refbench.tasks.kitmus.gold import instance_key
from refbench.tasks.kitmus.instance import SUBTASK_DIR, VIEWS
from refbench.tasks.kitmus.native import read_native

PRONOUNS = frozenset({"he", "she", "they", "ey", "ze", "xe", "it"})
Z_LIMIT = 4.0  # answer-position shares further than this many standard errors are flagged
MIN_FOR_BALANCE = 50  # fewer instances than this: shares are reported, not tested


class _Collector:
    def __init__(self) -> None:
        self.answers: dict[str, dict[str, str]] = defaultdict(dict)  # key -> source -> name
        self.entities: dict[str, dict[str, frozenset[str]]] = defaultdict(dict)
        self.positions: dict[str, Counter[int]] = defaultdict(Counter)
        self.pools: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.violations: list[str] = []
        self.instances: set[str] = set()
        self.files = 0

    def bad(self, where: str, what: str) -> None:
        self.violations.append(f"{where}: {what}")


def _resolve(clusters: list[list[tuple[Any, str, bool]]], where: str,
             col: _Collector) -> tuple[str | None, frozenset[str]]:
    """From clusters of (position, surface, is_pronoun): the answer name and entity names."""
    names = frozenset(s for c in clusters for _, s, p in c if not p)
    with_pron = [c for c in clusters if any(p for _, _, p in c)]
    if not with_pron:
        return None, names
    if len(with_pron) != 1:
        col.bad(where, f"the pronoun is in {len(with_pron)} clusters")
        return None, names
    antecedents = {s for _, s, p in with_pron[0] if not p}
    if len(antecedents) != 1:
        col.bad(where, f"the pronoun's cluster holds {len(antecedents)} entities")
        return None, names
    return next(iter(antecedents)), names


def _meet_position(clusters: list[list[tuple[Any, str, bool]]]) -> int | None:
    """Answer position among the entities in the sentence that names them all (the meet)."""
    by_sentence: dict[int, list[tuple[int, int]]] = defaultdict(list)
    pron_cluster = next((k for k, c in enumerate(clusters) if any(p for _, _, p in c)), None)
    for k, c in enumerate(clusters):
        for pos, _, p in c:
            if not p:
                by_sentence[pos[0]].append((pos[1], k))
    full = [s for s, items in by_sentence.items() if len({k for _, k in items}) == len(clusters)]
    if not full or pron_cluster is None:
        return None
    order = [k for _, k in sorted(by_sentence[max(full)])]
    return order.index(pron_cluster) if pron_cluster in order else None


def _conll(path: Path, source: str, col: _Collector) -> None:
    for doc in read_conll(path):
        key = instance_key(doc.doc_id)
        clusters = [[((m.sentence, m.start), doc.words(m),
                      doc.words(m).lower() in PRONOUNS) for m in ms]
                    for _, ms in sorted(doc.clusters.items())]
        answer, names = _resolve(clusters, f"{path}: {doc.doc_id}", col)
        col.entities[key][source] = names
        col.pools[key.rsplit("/", 1)[-1].split(":")[0]]["names"].update(names)
        if answer is not None:
            col.answers[key][source] = answer
            pos = _meet_position(clusters)
            if pos is not None and source == "conll/full-text":
                subtask = path.parent.parent
                name = f"{subtask.parent.name}/{subtask.name}/{path.name.split('.')[0]}"
                col.positions[name][pos] += 1
        col.instances.add(key)


def _jsonlines(path: Path, source: str, col: _Collector) -> None:
    for doc in read_jsonlines(path):
        key = instance_key(doc.doc_key)
        words = doc.words
        clusters = [[((0, a), " ".join(words[a:b + 1]),
                      " ".join(words[a:b + 1]).lower() in PRONOUNS) for a, b in c]
                    for c in doc.clusters]
        answer, names = _resolve(clusters, f"{path}: {doc.doc_key}", col)
        col.entities[key][source] = names
        if answer is not None:
            col.answers[key][source] = answer
        col.instances.add(key)


def _gap(path: Path, col: _Collector, source: str) -> None:
    for row in read_gap(path):
        key = instance_key(row.id)
        if row.a_coref == row.b_coref:
            col.bad(f"{path}:{row.line}", f"{row.id}: A-coref and B-coref are both "
                    f"{'TRUE' if row.a_coref else 'FALSE'}")
            continue
        col.answers[key][source] = row.a if row.a_coref else row.b
        col.instances.add(key)


def _native(path: Path, col: _Collector) -> None:
    split = path.stem
    for inst in read_native(path):
        key = instance_key(inst.id)
        col.answers[key]["jsonl"] = inst.entities[inst.answer].name
        col.entities[key]["jsonl"] = frozenset(e.name for e in inst.entities)
        pools = col.pools[split]
        pools["names"].update(e.name for e in inst.entities)
        pools["occupations"].update(e.occupation for e in inst.entities)
        pools["locations"].add(inst.location)
        for ids in inst.templates.values():
            pools["templates"].update(ids)
        if inst.noise_id:
            pools["noise"].add(inst.noise_id)
        col.instances.add(key)


def validate_suite(directory: str | Path, *, progress: bool = True) -> dict[str, Any]:
    root = Path(directory)
    if not root.is_dir():
        raise RefbenchError("suite folder not found", path=root)
    subtasks = sorted(p for p in root.rglob("*") if p.is_dir() and SUBTASK_DIR.match(p.name))
    if not subtasks:
        raise RefbenchError("no subtask_<n>_ents folders found: not a KITMUS suite", path=root)
    files = [f for sub in subtasks for f in sorted(sub.rglob("*")) if f.is_file()]
    col = _Collector()
    for f in tqdm(files, desc="kitmus validate", unit="file", disable=not progress):
        name = f.name[:-3] if f.name.endswith(".gz") else f.name
        view = f.parent.name if f.parent.name in VIEWS else None
        col.files += 1
        if name.endswith(".v4_gold_conll") and view:
            _conll(f, f"conll/{view}", col)
        elif name.endswith(".jsonlines") and view:
            _jsonlines(f, f"jsonlines/{view}", col)
        elif name.endswith(".tsv") and view:
            _gap(f, col, f"tsv/{view}")
        elif name.endswith(".jsonl") and view is None:
            _native(f, col)
        else:
            col.files -= 1
    _check_agreement(col)
    overlap = _check_overlap(col)
    balance = _check_balance(col)
    checks = {
        "formats and views agree": _status(col, "disagree"),
        "annotation well formed": _status(col, "cluster"),
        "split overlap": _status(col, "occur in both"),
        "answer-position balance": balance["status"],
    }
    return {
        "directory": str(root),
        "files": col.files,
        "subtasks": len(subtasks),
        "instances": len(col.instances),
        "checks": checks,
        "split_overlap": overlap,
        "answer_positions": balance["positions"],
        "violations": col.violations,
        "ok": not col.violations,
    }


def _status(col: _Collector, marker: str) -> str:
    n = sum(marker in v for v in col.violations)
    return "ok" if n == 0 else f"{n} violation(s)"


def _check_agreement(col: _Collector) -> None:
    for key in sorted(col.instances):
        answers = col.answers.get(key, {})
        if len(set(answers.values())) > 1:
            col.bad(key, "formats disagree on the answer: "
                    + ", ".join(f"{s}={a}" for s, a in sorted(answers.items())))
        entity_sets = col.entities.get(key, {})
        if len(set(entity_sets.values())) > 1:
            col.bad(key, "formats disagree on the entities: "
                    + ", ".join(f"{s}={sorted(e)}" for s, e in sorted(entity_sets.items())))


def _check_overlap(col: _Collector) -> dict[str, dict[str, int]]:
    splits = sorted(col.pools)
    out: dict[str, dict[str, int]] = {}
    for i, a in enumerate(splits):
        for b in splits[i + 1:]:
            pair = {pool: len(col.pools[a][pool] & col.pools[b].get(pool, set()))
                    for pool in col.pools[a]}
            out[f"{a}/{b}"] = pair
            for pool, n in pair.items():
                if n:
                    col.bad(f"splits {a}/{b}", f"{n} {pool} occur in both")
    return out


def _check_balance(col: _Collector) -> dict[str, Any]:
    positions: dict[str, dict[str, float]] = {}
    flagged = 0
    for name, counts in sorted(col.positions.items()):
        total = sum(counts.values())
        match = SUBTASK_DIR.match(name.split("/")[1])
        k = int(match.group(1)) if match else max(counts) + 1
        p = 1 / k
        se = math.sqrt(p * (1 - p) / total)
        positions[name] = {str(i): round(counts[i] / total, 4) for i in range(k)}
        if total < MIN_FOR_BALANCE:
            continue
        for i in range(k):
            z = abs(counts[i] / total - p) / se
            if z > Z_LIMIT:
                flagged += 1
                col.bad(name, f"answer position {i} has share {counts[i] / total:.3f}, expected "
                        f"{p:.3f} (z = {z:.1f})")
    return {"status": "ok" if not flagged else f"{flagged} unbalanced position(s)",
            "positions": positions}
