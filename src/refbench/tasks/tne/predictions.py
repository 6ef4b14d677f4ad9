"""TNE predictions: refbench JSONL and the leaderboard format, both ways.

refbench: ``{"id", "np_relations": [{"anchor", "complement", "preposition"}],
"preposition_scores": {"np0|np3": {"of": 0.7, ...}}}`` (scores optional, for UPrep-Acc).
Leaderboard: ``{"id", "predicted_prepositions": [[ids]]}``, an n x n matrix over the document's
NPs in order, with preposition ids in the official order (0 = no-relation).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import atomic_write, read_jsonl
from refbench.tasks.tne.read import PREP_ID, PREPOSITIONS, NPDocument

Pair = tuple[str, str]


@dataclass
class TnePrediction:
    id: str
    relations: dict[Pair, str]  # one predicted preposition per linked pair
    scores: dict[Pair, dict[str, float]] = field(default_factory=dict)
    line: int = 0


def read_predictions(path: str | Path, gold: dict[str, NPDocument]) -> dict[str, TnePrediction]:
    out: dict[str, TnePrediction] = {}
    for line, obj in read_jsonl(path):
        doc_id = str(obj.get("id", ""))
        doc = gold.get(doc_id)
        if doc is None:
            raise RefbenchError(f"prediction for unknown document {doc_id!r}", path=path,
                                line=line)
        ids = [np.id for np in doc.nps]
        rel: dict[Pair, str] = {}
        if "predicted_prepositions" in obj:
            matrix = obj["predicted_prepositions"]
            if len(matrix) != len(ids) or any(len(row) != len(ids) for row in matrix):
                raise RefbenchError(f"predicted_prepositions must be {len(ids)} x {len(ids)}",
                                    path=path, line=line, item=doc_id)
            for i, row in enumerate(matrix):
                for j, p in enumerate(row):
                    if not 0 <= int(p) < len(PREPOSITIONS):
                        raise RefbenchError(f"preposition id {p} outside 0..{len(PREPOSITIONS)-1}",
                                            path=path, line=line, item=doc_id)
                    if int(p) and i != j:
                        rel[(ids[i], ids[j])] = PREPOSITIONS[int(p)]
        else:
            known = set(ids)
            for r in obj.get("np_relations", []):
                a, c, p = str(r["anchor"]), str(r["complement"]), str(r["preposition"])
                if a not in known or c not in known:
                    raise RefbenchError(f"relation names an NP that does not exist "
                                        f"({a} -> {c})", path=path, line=line, item=doc_id)
                if p not in PREP_ID:
                    raise RefbenchError(f"unknown preposition {p!r}", path=path, line=line,
                                        item=doc_id)
                if p != "no-relation":
                    rel[(a, c)] = p
        scores = {}
        for key, dist in (obj.get("preposition_scores") or {}).items():
            a, _, c = str(key).partition("|")
            scores[(a, c)] = {str(k): float(v) for k, v in dist.items()}
        out[doc_id] = TnePrediction(doc_id, rel, scores, line)
    return out


def to_leaderboard(doc: NPDocument, relations: dict[Pair, str]) -> dict[str, Any]:
    ids = [np.id for np in doc.nps]
    pos = {x: i for i, x in enumerate(ids)}
    matrix = [[0] * len(ids) for _ in ids]
    for (a, c), p in relations.items():
        matrix[pos[a]][pos[c]] = PREP_ID[p]
    return {"id": doc.id, "predicted_prepositions": matrix}


def gold_relations(doc: NPDocument) -> dict[Pair, str]:
    """One preposition per gold pair (the first in the official order), for gold answers."""
    if doc.relations is None:
        return {}
    return {pair: min(preps, key=lambda p: PREP_ID[p]) for pair, preps in doc.relations.items()}


def write_predictions(docs: Iterable[NPDocument], preds: Iterable[dict[Pair, str]],
                      out: str | Path, *, leaderboard: bool = False,
                      scores: Iterable[dict[Pair, dict[str, float]]] | None = None) -> int:
    n = 0
    score_iter: Iterator[dict[Pair, dict[str, float]]] = iter(scores or [])
    with atomic_write(out) as fh:
        for doc, rel in zip(docs, preds, strict=True):
            if leaderboard:
                obj = to_leaderboard(doc, rel)
            else:
                obj = {"id": doc.id, "np_relations": [
                    {"anchor": a, "complement": c, "preposition": p}
                    for (a, c), p in sorted(rel.items())]}
                sc = next(score_iter, None)
                if sc:
                    obj["preposition_scores"] = {f"{a}|{c}": d for (a, c), d in sc.items()}
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
            n += 1
    return n
