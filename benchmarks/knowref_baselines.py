"""Benchmark: untrained models on the KnowRef test set (knowref_test.json, gold from the
``correct_candidate`` names), each also on the antecedent-switched copy for consistency, all
through the runner. Prints one JSON line: accuracy, consistency and the consistently correct /
wrong / inconsistent breakdown per model. Published: human 0.92, BERT 0.61, rule/stat/neural
coreference 0.49-0.54.

    python benchmarks/knowref_baselines.py [--models first,last,random,embedding,llm-loglik,
        cross-encoder] [--threads 1] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from refbench.runs.runner import run_model
from refbench.tasks.knowref.metrics import evaluate_knowref
from refbench.tasks.knowref.switch import switch_file

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "knowref"
MODELS = "first,last,random,embedding,llm-loglik,cross-encoder"


def score(spec: str, test: Path, switched: Path, out: Path) -> dict[str, object]:
    """Run ``spec`` on the test file and its switched copy; accuracy and consistency."""
    start = time.perf_counter()
    run_model(spec, test, out / "test", progress=False)
    run_model(spec, switched, out / "switched", progress=False)
    r = evaluate_knowref(test, out / "test" / "predictions.jsonl",
                         switched_pred=out / "switched" / "predictions.jsonl",
                         switched_gold=switched)
    return {"accuracy": round(r["accuracy"], 4),
            "switched_accuracy": round(r["switched"]["accuracy"], 4),
            "consistency": round(r["consistency"], 4), "breakdown": r["switched"]["breakdown"],
            "n": r["n"], "n_switched_pairs": r["switched"]["n_pairs"],
            "seconds": round(time.perf_counter() - start, 1)}


def main() -> None:
    import torch

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--models", default=MODELS)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    out = args.out or Path(tempfile.mkdtemp(prefix="knowref-baselines-"))
    test = DATA / "knowref_test.json"
    switched = out / "knowref_test.switched.json"
    switch_file(test, switched)
    result: dict[str, object] = {"benchmark": "knowref_baselines", "data": str(test),
                                 "gold": "correct_candidate (name)", "published_bert": 0.61}
    for spec in args.models.split(","):
        result[spec] = score(spec, test, switched, out / spec.replace(":", "_"))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
