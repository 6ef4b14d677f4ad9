"""TNE predictions: refbench JSONL and the leaderboard format, both ways.

refbench: ``{"id", "np_relations": [{"anchor", "complement", "preposition"}],
"preposition_scores": {"np0|np3": {"of": 0.7, ...}}}`` (scores optional, for UPrep-Acc).
Leaderboard: ``{"id", "predicted_prepositions": [[ids]]}``, an n x n matrix over the document's
NPs in order, with preposition ids in the official order (0 = no-relation). refbench adds one
optional key to it, ``"best_prepositions"``: a second n x n matrix holding, for every pair, the
preposition the model ranks first among the real ones (0 = none given). It is what UPrep-Acc
reads on the links the model did not predict, in a fraction of the size of per-pair scores.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refbench.core.io import atomic_write, read_jsonl
from refbench.core.records import Record, Where, check_int, check_list
from refbench.formats.answers import no_overlap_error
from refbench.tasks.tne.read import PREP_ID, PREPOSITIONS, NPDocument, best_preposition

Pair = tuple[str, str]
_EMPTY = Record({}, Where())


@dataclass
class TnePrediction:
    id: str
    relations: dict[Pair, str]  # one predicted preposition per linked pair
    scores: dict[Pair, dict[str, float]] = field(default_factory=dict)
    line: int = 0


def _matrix_relations(pred: Record, ids: list[str]) -> dict[Pair, str]:
    return {pair: PREPOSITIONS[k] for pair, k in _matrix(pred, "predicted_prepositions", ids)
            if k}


def _matrix(pred: Record, key: str, ids: list[str]) -> Iterator[tuple[Pair, int]]:
    """The off-diagonal cells of an n x n matrix of preposition ids, each checked."""
    for i, row in enumerate(pred.items(key, length=len(ids))):
        name = f"{key}[{i}]"
        row = check_list(row, name, pred.where, length=len(ids))
        for j, p in enumerate(row):
            k = check_int(p, f"{name}[{j}]", pred.where, min=0, max=len(PREPOSITIONS) - 1)
            if i != j:
                yield (ids[i], ids[j]), k


def _listed_relations(pred: Record, known: set[str]) -> dict[Pair, str]:
    rel: dict[Pair, str] = {}
    for r in pred.records("np_relations", []):
        a, c, p = r.text("anchor"), r.text("complement"), r.string("preposition")
        if a not in known or c not in known:
            raise pred.where.error(f"relation names an NP that does not exist ({a} -> {c})")
        if p not in PREP_ID:
            raise pred.where.error(f"unknown preposition {p!r}")
        if p != "no-relation":
            rel[(a, c)] = p
    return rel


def read_predictions(path: str | Path, gold: dict[str, NPDocument], *,
                     skipped: Collection[str] = ()) -> dict[str, TnePrediction]:
    """Predictions by document id, every line's shape checked (a line naming a document the
    gold lacks, or a document twice, is an error). ``skipped``: ids of gold documents skipped
    as malformed (``--skip-invalid``), whose predictions are ignored."""
    out: dict[str, TnePrediction] = {}
    for line, obj in read_jsonl(path):
        pred = Record(obj, Where(path, line))
        doc_id = pred.text("id")
        if doc_id in skipped:
            continue
        pred = Record(obj, Where(path, line, doc_id))
        doc = gold.get(doc_id)
        if doc is None:
            raise pred.where.error(f"prediction for unknown document {doc_id!r}"
                                   + _id_hint(gold, doc_id))
        if doc_id in out:
            raise pred.where.error(f"second prediction for document {doc_id!r} (first at line "
                                   f"{out[doc_id].line})")
        ids = [np.id for np in doc.nps]
        rel = (_matrix_relations(pred, ids) if "predicted_prepositions" in obj
               else _listed_relations(pred, set(ids)))
        scores: dict[Pair, dict[str, float]] = {}
        for key, dist in (pred.record("preposition_scores", None) or _EMPTY).obj.items():
            a, _, c = str(key).partition("|")
            dist_rec = Record(dist, pred.where, prefix=f"preposition_scores[{key!r}].")
            unknown = [k for k in dist_rec.obj if k not in PREP_ID]
            if unknown:
                raise pred.where.error(f"preposition_scores[{key!r}] scores unknown "
                                       f"preposition(s) {', '.join(map(repr, unknown[:3]))}")
            scores[(a, c)] = {str(k): dist_rec.number(k) for k in dist_rec.obj}
        if "best_prepositions" in obj:
            for pair, k in _matrix(pred, "best_prepositions", ids):
                if k and pair not in scores:
                    scores[pair] = {PREPOSITIONS[k]: 1.0}
        out[doc_id] = TnePrediction(doc_id, rel, scores, line)
    if not out:
        raise no_overlap_error(path, [], list(gold))
    return out


def _id_hint(gold: dict[str, NPDocument], doc_id: str) -> str:
    example = next(iter(gold), None)
    return (f"; the gold's ids look like {example!r} (predictions for another data set or "
            "task?)" if example is not None else "")


def to_leaderboard(doc: NPDocument, relations: dict[Pair, str],
                   scores: dict[Pair, dict[str, float]] | None = None) -> dict[str, Any]:
    """One leaderboard line. With ``scores``, it also carries ``best_prepositions``: each
    scored pair's highest-scored preposition other than no-relation (ties: the official order)."""
    ids = [np.id for np in doc.nps]
    pos = {x: i for i, x in enumerate(ids)}

    def matrix(cells: dict[Pair, str]) -> list[list[int]]:
        m = [[0] * len(ids) for _ in ids]
        for (a, c), p in cells.items():
            m[pos[a]][pos[c]] = PREP_ID[p]
        return m

    line: dict[str, Any] = {"id": doc.id, "predicted_prepositions": matrix(relations)}
    if scores:
        best = {pair: q for pair, dist in scores.items()
                if (q := best_preposition(dist)) is not None}
        line["best_prepositions"] = matrix(best)
    return line


def gold_relations(doc: NPDocument) -> dict[Pair, str]:
    """One preposition per gold pair (the first in the official order), for gold answers."""
    if doc.relations is None:
        return {}
    return {pair: min(preps, key=lambda p: PREP_ID[p]) for pair, preps in doc.relations.items()}


def write_predictions(docs: Iterable[NPDocument], preds: Iterable[dict[Pair, str]],
                      out: str | Path, *, leaderboard: bool = False,
                      scores: Iterable[dict[Pair, dict[str, float]]] | None = None) -> int:
    """Write predictions as refbench JSONL or the leaderboard format. ``scores`` (one dict per
    document) go in whole to refbench JSONL and as ``best_prepositions`` to the leaderboard."""
    n = 0
    score_iter: Iterator[dict[Pair, dict[str, float]]] = iter(scores or [])
    with atomic_write(out) as fh:
        for doc, rel in zip(docs, preds, strict=True):
            sc = next(score_iter, None)
            if leaderboard:
                obj = to_leaderboard(doc, rel, sc)
            else:
                obj = {"id": doc.id, "np_relations": [
                    {"anchor": a, "complement": c, "preposition": p}
                    for (a, c), p in sorted(rel.items())]}
                if sc:
                    obj["preposition_scores"] = {f"{a}|{c}": d for (a, c), d in sc.items()}
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
            n += 1
    return n
