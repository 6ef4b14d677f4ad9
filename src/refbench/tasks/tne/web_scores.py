"""The per-document labeled F1 of a TNE run's predictions on a web dataset (compare's paired
tests), cached while the files are unchanged; and the predicted links of a file as the
index's per-document outputs."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any


@lru_cache(maxsize=1)
def _documents(data: tuple[str, ...], data_stamp: str) -> list[Any]:
    """A TNE dataset's documents, kept (one dataset at a time, to bound memory) for the
    evaluations that follow one another: every prediction file of a leaderboard table."""
    from refbench.tasks.tne.read import read_tne

    return [d for f in data for d in read_tne(f)]


def document_outputs(payloads: dict[str, dict[str, Any]], predictions: Path
                     ) -> dict[str, dict[str, Any]]:
    """Per document id, the predicted relations of a TNE prediction file (only the documents'
    NP ids are needed to read either prediction format). RefbenchError when the file is for
    other documents or malformed."""
    from refbench.tasks.tne.predictions import read_predictions
    from refbench.tasks.tne.read import NounPhrase, NPDocument

    docs: dict[str, NPDocument] = {}
    for iid, p in payloads.items():
        nps = [NounPhrase(i, t, a, b, 0, 0) for i, a, b, t in p["nps"]]
        docs[iid] = NPDocument(iid, "", [], nps, None)
    preds = read_predictions(predictions, docs)
    return {doc_id: {"relations": sorted([a, c, p] for (a, c), p in pred.relations.items())}
            for doc_id, pred in preds.items()}


def labeled_f1_by_document(gold: Any, pred: Any) -> float:
    """One document's labeled F1 (the headline metric, counted as :func:`evaluate_tne` counts
    it: a linked pair with a wrong preposition is a false positive and a false negative). A
    document with no gold link and no predicted link scores 1.0: nothing to find, nothing
    claimed."""
    g = gold.relations or {}
    p = pred.relations if pred is not None else {}
    tp = sum(1 for pair, prep in p.items() if pair in g and prep in g[pair])
    fp = len(p) - tp
    fn = len(g) - tp
    return 1.0 if tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)


@lru_cache(maxsize=64)
def document_scores(data: tuple[str, ...], data_stamp: str, pred: str,
                    stamp: tuple[int, int]) -> dict[str, float]:
    """Labeled F1 of every document of the dataset (no prediction: predicting nothing)."""
    from refbench.tasks.tne.predictions import read_predictions

    docs = _documents(data, data_stamp)
    preds = read_predictions(pred, {d.id: d for d in docs})
    return {d.id: labeled_f1_by_document(d, preds.get(d.id)) for d in docs}
