"""Benchmark: the TNE deterministic baselines on the labelled test set beside Table 4, on dev
and OOD too; every surface-expand reading and coreference propagation reading tried (the table
of docs/tne-baselines.md); and the NP chunker against the gold NPs of the dev set. Prints one
JSON line (figures in percent).

    python benchmarks/tne.py [--chunk-docs 500] [--skip-readings]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.tasks.tne.models.baselines import (
    BASELINES,
    COREF_READINGS,
    SURFACE_EXPAND_READINGS,
    TABLE4,
    adj_backward,
    score_links,
    title_last,
    window_links,
)
from refbench.tasks.tne.models.chunker import chunk_texts
from refbench.tasks.tne.read import NPDocument, read_tne

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tne"


def prf(docs: list[NPDocument], links: list[set[tuple[str, str]]]) -> list[float]:
    r = score_links(docs, links)
    return [round(100 * r[k], 3) for k in ("labeled_precision", "labeled_recall", "labeled_f1")]


def readings(docs: list[NPDocument]) -> dict[str, Any]:
    """Surface-expand under every reading, combined with title-last and adj-backward, and
    combined-coref under every propagation reading."""
    base = [title_last(d) | adj_backward(d) for d in docs]
    out: dict[str, Any] = {}
    for name, (_, window) in tqdm(SURFACE_EXPAND_READINGS.items(), desc="readings"):
        se = [window_links(d, window) for d in docs]
        comb = [b | s for b, s in zip(base, se, strict=True)]
        out[name] = {"surface-expand": prf(docs, se), "combined": prf(docs, comb)}
        for cname, (_, spread) in COREF_READINGS.items():
            out[name][f"combined-coref/{cname}"] = prf(
                docs, [spread(d, c) for d, c in zip(docs, comb, strict=True)])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--chunk-docs", type=int, default=500)
    ap.add_argument("--skip-readings", action="store_true")
    args = ap.parse_args()
    splits = {name: list(read_tne(DATA / f"{name}.jsonl.gz")) for name in ("test", "dev", "ood")}
    baselines = {split: {name: prf(docs, [fn(d, 0) for d in docs])
                         for name, fn in BASELINES.items()} for split, docs in splits.items()}
    result: dict[str, Any] = {
        "benchmark": "tne", "table4_test": {k: list(v) for k, v in TABLE4.items()},
        "baselines": baselines,
        "within_0.3_of_table4": [
            n for n, v in baselines["test"].items()
            if all(abs(a - b) <= 0.3 for a, b in zip(v, TABLE4[n], strict=True))],
    }
    if not args.skip_readings:
        result["readings_test"] = readings(splits["test"])
    dev = splits["dev"][: args.chunk_docs]
    start = time.perf_counter()
    tp = fp = fn = 0
    for doc, chunks in zip(dev, chunk_texts(d.text for d in dev), strict=True):
        gold = {(n.first_char, n.last_char) for n in doc.nps}
        pred = {(c.first_char, c.last_char) for c in chunks}
        tp, fp, fn = tp + len(gold & pred), fp + len(pred - gold), fn + len(gold - pred)
    result["chunker_dev"] = {"docs": len(dev), "span_precision": round(tp / (tp + fp), 4),
                             "span_recall": round(tp / (tp + fn), 4),
                             "docs_per_s": round(len(dev) / (time.perf_counter() - start), 1)}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
