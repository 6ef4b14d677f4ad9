"""Benchmark: the TNE deterministic baselines on the labelled test set against Table 4, and the
NP chunker against the gold NPs of the dev set. Prints one JSON line.

    python benchmarks/tne.py [--chunk-docs 500]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from refbench.tasks.tne.baselines import BASELINES, TABLE4_F1, with_oracle_prepositions
from refbench.tasks.tne.chunker import chunk_texts
from refbench.tasks.tne.metrics import evaluate_tne
from refbench.tasks.tne.predictions import TnePrediction
from refbench.tasks.tne.read import read_tne

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tne"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--chunk-docs", type=int, default=500)
    args = ap.parse_args()
    test = list(read_tne(DATA / "test.jsonl.gz"))
    table = {}
    for name, fn in BASELINES.items():
        r = evaluate_tne(test, {d.id: TnePrediction(d.id, with_oracle_prepositions(d, fn(d, 0)))
                                for d in test})
        table[name] = {"P": round(100 * r["labeled_precision"], 1),
                       "R": round(100 * r["labeled_recall"], 1),
                       "F1": round(100 * r["labeled_f1"], 1), "table4_F1": TABLE4_F1[name]}
    dev = list(read_tne(DATA / "dev.jsonl.gz"))[: args.chunk_docs]
    start = time.perf_counter()
    tp = fp = fn = 0
    for doc, chunks in zip(dev, chunk_texts(d.text for d in dev), strict=True):
        gold = {(n.first_char, n.last_char) for n in doc.nps}
        pred = {(c.first_char, c.last_char) for c in chunks}
        tp, fp, fn = tp + len(gold & pred), fp + len(pred - gold), fn + len(gold - pred)
    print(json.dumps({
        "benchmark": "tne", "baselines_test": table,
        "within_1_f1": [n for n, v in table.items() if abs(v["F1"] - v["table4_F1"]) <= 1.0],
        "chunker_dev": {"docs": len(dev), "span_precision": round(tp / (tp + fp), 4),
                        "span_recall": round(tp / (tp + fn), 4),
                        "docs_per_s": round(len(dev) / (time.perf_counter() - start), 1)},
    }))


if __name__ == "__main__":
    main()
