"""One annotator's TNE annotation as a TNE v1.1 document, and agreement between annotators.

The document has the release's fields (``coref`` with ``np_type``; ``np_relations`` with one
entry per complement-chain member and ``complement_coref_cluster_id``), so ``refbench
evaluate --task tne`` and ``refbench tne baseline`` read it. Agreement uses the same documents:
CoNLL coreference F1 (MUC, B3, CEAF-e, micro-averaged over documents, singletons included since
both sides cluster the same NPs) and, through refbench's TNE scorer, labeled / unlabeled link
P/R/F1 and IPrep-Acc with one annotator as reference (F1 and IPrep-Acc do not depend on which).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from refbench.metrics.agreement import coref_agreement
from refbench.studyfile.db import Item
from refbench.tasks.tne.annotation.study_chains import (
    chain_type,
    chains,
    is_complete,
    stage_answers,
)


def document(item: Item, answers: dict[str, Any], annotator: str) -> dict[str, Any]:
    """The TNE v1.1 JSON object of one annotator's (complete) annotation of one document."""
    p = item.payload
    ids = [n["id"] for n in p["nps"]]
    s1, s2 = stage_answers(answers, 1), stage_answers(answers, 2)
    rep = chains(ids, s1)
    reps = list(dict.fromkeys(rep[x] for x in ids))
    cid = {r: f"cc{k}" for k, r in enumerate(reps)}
    members = {r: [x for x in ids if rep[x] == r] for r in reps}
    relations = []
    for anchor in ids:
        chosen: dict[str, str] = {}
        for member, prep in sorted(s2.get(anchor, {}).get("links", {}).items(),
                                   key=lambda kv: ids.index(kv[0])):
            chosen.setdefault(rep[member], prep)
        for r, prep in sorted(chosen.items(), key=lambda kv: ids.index(kv[0])):
            if r == rep[anchor]:
                continue
            relations += [{"anchor": anchor, "complement": m, "preposition": prep,
                           "complement_coref_cluster_id": cid[r]} for m in members[r]]
    return {
        "id": p["id"], "text": p["text"], "tokens": p["tokens"],
        "nps": [{k: n[k] for k in ("text", "first_char", "last_char", "first_token",
                                   "last_token", "id")} for n in p["nps"]],
        "np_relations": relations,
        "coref": [{"id": cid[r], "members": members[r], "np_type": chain_type(r, s1)}
                  for r in reps],
        "metadata": {**p.get("metadata", {}), "annotators": {"study": annotator}},
    }


def _clusters(docs: list[dict[str, Any]]) -> list[set[str]]:
    return [{f"{d['id']}/{m}" for m in c["members"]} for d in docs for c in d["coref"]]


def compare(reference: list[dict[str, Any]], other: list[dict[str, Any]]) -> dict[str, Any]:
    """Coreference and link agreement of ``other`` against ``reference`` (same documents)."""
    from refbench.tasks.tne.metrics import evaluate_tne
    from refbench.tasks.tne.predictions import TnePrediction, gold_relations
    from refbench.tasks.tne.read import document_from_json

    ref_docs = [document_from_json(d) for d in reference]
    preds = {}
    for d in other:
        doc = document_from_json(d)
        preds[doc.id] = TnePrediction(doc.id, gold_relations(doc))
    links = evaluate_tne(ref_docs, preds)
    out: dict[str, Any] = {"n_documents": len(reference),
                           **coref_agreement(_clusters(reference), _clusters(other))}
    for key in ("labeled_precision", "labeled_recall", "labeled_f1", "unlabeled_precision",
                "unlabeled_recall", "unlabeled_f1", "iprep_accuracy"):
        out[key] = links[key]
    return out


def gold_document(item: Item) -> dict[str, Any] | None:
    p = item.payload
    if not p.get("gold"):
        return None
    return {"id": p["id"], "text": p["text"], "tokens": p["tokens"],
            "nps": [{k: n[k] for k in ("text", "first_char", "last_char", "first_token",
                                       "last_token", "id")} for n in p["nps"]],
            **p["gold"]}


def tne_agreement(items: list[Item], answers: dict[str, dict[str, dict[str, Any]]]
                  ) -> dict[str, Any]:
    """``answers``: {annotator: {item id: {unit: value}}}. Pairwise figures over the documents
    both annotators completed, their means, and each annotator against the file's gold."""
    docs: dict[str, dict[str, dict[str, Any]]] = {}
    for name, by_item in sorted(answers.items()):
        docs[name] = {it.id: document(it, by_item[it.id], name) for it in items
                      if it.id in by_item and is_complete(it, by_item[it.id])}
    pairs = []
    for a, b in combinations(sorted(docs), 2):
        shared = [i for i in docs[a] if i in docs[b]]
        if shared:
            pairs.append({"annotators": [a, b],
                          **compare([docs[a][i] for i in shared], [docs[b][i] for i in shared])})
    keys = ("muc_f1", "b3_f1", "ceafe_f1", "conll_f1", "labeled_f1", "unlabeled_f1",
            "iprep_accuracy")
    mean: dict[str, float | None] = {}
    for k in keys:
        values = [p[k] for p in pairs if p[k] is not None]
        mean[k] = sum(values) / len(values) if values else None
    gold = {it.id: g for it in items if (g := gold_document(it)) is not None}
    against_gold = {}
    for name, mine in docs.items():
        shared = [i for i in mine if i in gold]
        if shared:
            against_gold[name] = compare([gold[i] for i in shared], [mine[i] for i in shared])
    return {"completed": {n: len(d) for n, d in docs.items()}, "pairs": pairs,
            "mean_over_pairs": mean, "against_gold": against_gold}


def _num(x: Any) -> str:
    return "-" if x is None else f"{x:.3f}" if isinstance(x, float) else str(x)


def agreement_lines(t: dict[str, Any]) -> list[str]:
    """The agreement of :func:`tne_agreement` as text lines (``study agreement``)."""
    lines: list[str] = []
    keys = ("muc_f1", "b3_f1", "ceafe_f1", "conll_f1", "labeled_f1", "unlabeled_f1",
            "iprep_accuracy")
    lines += ["", f"{'':24s} {'docs':>4s} " + " ".join(f"{k:>8s}" for k in
                                                      ("MUC", "B3", "CEAF-e", "CoNLL",
                                                       "lab F1", "unlab F1", "IPrep"))]
    named = [(" vs ".join(p["annotators"]), p) for p in t["pairs"]]
    named += [(f"{a} vs gold", p) for a, p in t["against_gold"].items()]
    for name, p in named:
        lines.append(f"{name:24s} {p['n_documents']:4d} " +
                     " ".join(f"{_num(p[k]):>8s}" for k in keys))
    if t["pairs"]:
        lines.append(f"{'mean over pairs':24s} {'':4s} " +
                     " ".join(f"{_num(t['mean_over_pairs'][k]):>8s}" for k in keys))
    if not named:
        lines.append("no document is complete yet")
    return lines
