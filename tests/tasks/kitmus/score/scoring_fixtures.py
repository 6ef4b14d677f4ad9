"""Hand-built KITMUS gold documents and predictions whose metrics are worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path

from refbench.formats.conll2012 import format_conll

__all__ = ["format_conll"]

# Each document: names (task-text order), answer index, and what the "system" links.
# A: correct | B: wrong | C: two antecedents | D: pronoun in no cluster | E: no prediction
DOCS = {
    "A": (["Aldo", "Bree"], 0, {0}),
    "B": (["Cole", "Dunn"], 1, {0}),
    "C": (["Eads", "Faro", "Gish"], 2, {0, 2}),
    "D": (["Hale", "Ives", "Jory"], 1, set()),
    "E": (["Kemp", "Lowe"], 0, None),
}
# Hand-worked: TP 2, FP 2, FN 3 -> P 0.5, R 0.4, F1 4/9; accuracy 1/5; decisions
# correct 1, incorrect 1, multiple 1, none 2; task-specific accuracy 1/2; random 13/30.
EXPECTED = {"antecedent_precision": 0.5, "antecedent_recall": 0.4, "antecedent_f1": 4 / 9,
            "pronoun_accuracy": 0.2, "task_specific_accuracy": 0.5, "n": 5, "n_missing": 1}


def doc_id(key: str) -> str:
    n = len(DOCS[key][0])
    return f"kitmus/background-both/subtask_{n}_ents/test:{key}"


def sentences(key: str) -> tuple[list[list[tuple[str, str]]], list[list[tuple[int, int, int]]]]:
    """Knowledge sentences, the meet sentence, the pronoun sentence; clusters per entity."""
    names, answer, _ = DOCS[key]
    sents: list[list[tuple[str, str]]] = []
    clusters: list[list[tuple[int, int, int]]] = [[] for _ in names]
    for e, name in enumerate(names):
        clusters[e].append((len(sents), 0, 0))
        sents.append([(name, "NNP"), ("is", "VBZ"), ("a", "DT"), ("baker", "NN"), (".", ".")])
    meet: list[tuple[str, str]] = []
    for e, name in enumerate(names):
        if e:
            meet.append(("and", "CC"))
        clusters[e].append((len(sents), len(meet), len(meet)))
        meet.append((name, "NNP"))
    meet += [("met", "VBD"), (".", ".")]
    sents.append(meet)
    clusters[answer].append((len(sents), 0, 0))
    sents.append([("She", "PRP"), ("was", "VBD"), ("baking", "VBG"), (".", ".")])
    return sents, clusters


def doc_spans(key: str) -> tuple[list[str], list[tuple[int, int]], tuple[int, int]]:
    """Words, the task-text span of each candidate, and the pronoun span (document level)."""
    sents, _ = sentences(key)
    words = [w for s in sents for w, _ in s]
    n = len(DOCS[key][0])
    meet_start = sum(len(s) for s in sents[:n])
    cands = [(meet_start + 2 * e, meet_start + 2 * e) for e in range(n)]
    p = len(words) - 4
    return words, cands, (p, p)


def write_gold(path: Path) -> Path:
    with path.open("w") as fh:
        for key in DOCS:
            sents, clusters = sentences(key)
            fh.write(format_conll(doc_id(key), sents, clusters))
    return path


def write_jsonlines_preds(path: Path, *, with_gold_clusters: bool = False) -> Path:
    with path.open("w") as fh:
        for key, (_, _, linked) in DOCS.items():
            if linked is None:
                continue
            words, cands, pron = doc_spans(key)
            clusters = [[list(cands[k]), list(pron)] for k in sorted(linked)]
            obj = {"doc_key": doc_id(key), "sentences": [words], "predicted_clusters": clusters}
            if with_gold_clusters:
                obj["clusters"] = clusters
            fh.write(json.dumps(obj) + "\n")
    return path


def write_answers(path: Path, *, by_name: bool = False) -> Path:
    """Answers JSONL: one answer per document (C cannot say 'two'; it answers its first link)."""
    with path.open("w") as fh:
        for key, (names, _, linked) in DOCS.items():
            if linked is None:
                continue
            answer: int | str | None = min(linked) if linked else None
            if by_name and answer is not None:
                answer = names[answer]
            fh.write(json.dumps({"id": doc_id(key), "answer": answer}) + "\n")
    return path
