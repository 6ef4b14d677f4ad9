"""TNE metrics, matched by document id (never by position).

- labeled P/R/F1 over ordered NP pairs: a predicted preposition is right when it is one of the
  pair's gold prepositions; unlabeled P/R/F1 over links;
- IPrep-Acc: preposition accuracy on the gold links the model found; UPrep-Acc: on the gold
  links it missed, using its best non-"no-relation" preposition from per-pair scores (only when
  predictions carry scores);
- breakdowns: per preposition (with a confusion matrix), NP distance bins (Figure 7), explicit
  ("X of Y" in the text) vs implicit links, and document source (wikinews, imdb, books,
  reddit/<subreddit>). Documents without predictions count as predicting nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.metrics.prf import PRF
from refbench.tasks.tne.predictions import Pair, TnePrediction
from refbench.tasks.tne.read import PREP_ID, NPDocument, best_preposition

DISTANCE_BINS = ((1, 1), (2, 2), (3, 5), (6, 10), (11, 20), (21, 10**9))


def _bin(d: int) -> str:
    for lo, hi in DISTANCE_BINS:
        if lo <= d <= hi:
            return f"{lo}" if lo == hi else (f"{lo}-{hi}" if hi < 10**9 else f"{lo}+")
    return "?"


def explicit_pairs(doc: NPDocument) -> set[Pair]:
    """Gold pairs written out in the text: anchor, one of the pair's prepositions, complement."""
    out: set[Pair] = set()
    if doc.relations is None:
        return out
    by_id = {np.id: np for np in doc.nps}
    for (a, c), preps in doc.relations.items():
        na, nc = by_id[a], by_id[c]
        between = doc.tokens[na.last_token + 1:nc.first_token]
        if " ".join(between).lower() in preps:
            out.add((a, c))
    return out


class _Counts:
    def __init__(self) -> None:
        self.labeled = PRF()
        self.unlabeled = PRF()

    def summary(self) -> dict[str, float]:
        return {"labeled_precision": self.labeled.precision, "labeled_recall": self.labeled.recall,
                "labeled_f1": self.labeled.f1, "unlabeled_precision": self.unlabeled.precision,
                "unlabeled_recall": self.unlabeled.recall, "unlabeled_f1": self.unlabeled.f1,
                "n_gold": self.unlabeled.tp + self.unlabeled.fn,
                "n_predicted": self.unlabeled.tp + self.unlabeled.fp}


def evaluate_tne(gold: Sequence[NPDocument], preds: dict[str, TnePrediction]) -> dict[str, Any]:
    """Score predictions against labelled gold documents. Empty or unlabelled gold is an
    error: scoring it would print zeros that mean nothing."""
    if not gold:
        raise RefbenchError("the gold holds no documents: nothing to score")
    unlabelled = [d.id for d in gold if d.relations is None]
    if unlabelled:
        raise RefbenchError(f"{len(unlabelled)} of {len(gold)} gold documents have no "
                            f"np_relations (e.g. {unlabelled[0]!r}): unlabelled data cannot be "
                            "scored (the test_unlabeled release has no labels)")
    total = _Counts()
    by_bin: dict[str, _Counts] = defaultdict(_Counts)
    by_source: dict[str, _Counts] = defaultdict(_Counts)
    by_kind: dict[str, PRF] = defaultdict(PRF)
    per_prep: dict[str, PRF] = defaultdict(PRF)
    confusion: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    found = right = 0
    missed = missed_scored = missed_right = 0
    missing_docs = []
    per_doc: dict[str, list[int]] = {"tp": [], "fp": [], "fn": []}  # labeled, for the interval
    for doc in gold:
        before = (total.labeled.tp, total.labeled.fp, total.labeled.fn)
        g = doc.relations or {}
        p = preds.get(doc.id)
        if p is None:
            missing_docs.append(doc.id)
        pred = p.relations if p else {}
        pos = doc.text_rank()  # NP distance in text order
        explicit = explicit_pairs(doc)
        for pair in set(g) | set(pred):
            in_gold, in_pred = pair in g, pair in pred
            ok = in_gold and in_pred and pred[pair] in g[pair]
            dist = _bin(abs(pos[pair[0]] - pos[pair[1]]))
            for counts in (total, by_bin[dist], by_source[doc.source]):
                counts.unlabeled.add(in_gold, in_pred)
                if in_pred and not in_gold:
                    counts.labeled.fp += 1
                elif in_gold and not in_pred:
                    counts.labeled.fn += 1
                elif in_gold and in_pred:
                    if ok:
                        counts.labeled.tp += 1
                    else:
                        counts.labeled.fp += 1
                        counts.labeled.fn += 1
            predicted = pred.get(pair, "no-relation")
            # A right answer sits on the diagonal; otherwise the pair's first gold preposition.
            row = predicted if ok else (min(g[pair], key=lambda x: PREP_ID[x]) if in_gold
                                        else "no-relation")
            confusion[row][predicted] += 1
            if in_gold:
                by_kind["explicit" if pair in explicit else "implicit"].add(True, in_pred)
                for prep in g[pair]:
                    per_prep[prep].add(True, ok and pred[pair] == prep)
                if in_pred:
                    found += 1
                    right += ok
                else:
                    missed += 1
                    best = best_preposition(p.scores.get(pair) or {}) if p else None
                    if best is not None:
                        missed_scored += 1
                        missed_right += best in g[pair]
            if in_pred and not ok:
                per_prep[pred[pair]].fp += 1
        for key, was, now in zip(("tp", "fp", "fn"), before,
                                 (total.labeled.tp, total.labeled.fp, total.labeled.fn),
                                 strict=True):
            per_doc[key].append(now - was)
    out: dict[str, Any] = {"task": "tne", **total.summary(),
                           "iprep_accuracy": right / found if found else None,
                           "uprep_accuracy": (missed_right / missed_scored
                                              if missed_scored else None),
                           "uprep_scored": missed_scored, "gold_links_missed": missed,
                           "n_documents": len(gold), "n_missing_documents": len(missing_docs),
                           "missing_documents": missing_docs[:20]}
    out["ci95"] = labeled_f1_interval(per_doc)
    out["by_distance"] = {k: by_bin[k].summary() for k in
                          [_bin(lo) for lo, _ in DISTANCE_BINS] if k in by_bin}
    out["by_source"] = {k: v.summary() for k, v in sorted(by_source.items())}
    out["explicit_vs_implicit"] = {k: {"n_gold": v.tp + v.fn, "recall": v.recall}
                                   for k, v in sorted(by_kind.items())}
    out["per_preposition"] = {q: {"precision": v.precision, "recall": v.recall, "f1": v.f1,
                                  "n_gold": v.tp + v.fn}
                              for q, v in sorted(per_prep.items(), key=lambda x: PREP_ID[x[0]])}
    out["confusion"] = {gp: dict(sorted(row.items(), key=lambda x: PREP_ID[x[0]]))
                        for gp, row in sorted(confusion.items(), key=lambda x: PREP_ID[x[0]])}
    return out


def labeled_f1_interval(per_doc: dict[str, list[int]], *, resamples: int = 1000,
                        seed: int = 0) -> dict[str, Any]:
    """The 95% interval of labeled F1 (the headline): a seeded percentile bootstrap over
    documents (links within a document are not independent), from each document's labeled
    true/false positives and false negatives."""
    from refbench.metrics.bootstrap import bootstrap_cis, f1_stat

    low, high = bootstrap_cis(per_doc, {"labeled_f1": f1_stat}, resamples=resamples,
                              seed=seed)["labeled_f1"]
    return {"labeled_f1": [low, high], "resamples": resamples, "seed": seed}
