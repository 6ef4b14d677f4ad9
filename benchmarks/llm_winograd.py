"""Benchmark: llm-loglik (SmolLM2-135M by default) on WSC273 and WinoGrande-dev, scored as
lm-evaluation-harness scores WinoGrande. Prints one JSON line with acc, acc_norm and speed.

    python benchmarks/llm_winograd.py [--model llm-loglik] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from refbench.models.base import build_model
from refbench.runs.record import output_metrics
from refbench.runs.runner import predict_all
from refbench.tasks.choices import read_choices
from refbench.tasks.lookup import get_task

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "winograd"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", default="llm-loglik")
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args()
    start = time.perf_counter()
    model = build_model(args.model)
    load_s = time.perf_counter() - start
    out: dict[str, object] = {"benchmark": "llm_winograd", "model": args.model,
                              "load_s": round(load_s, 1)}
    for name in ("wsc273", "winogrande-dev"):
        instances = list(read_choices(DATA / f"{name}.jsonl"))[: args.limit]
        t0 = time.perf_counter()
        outputs, _ = predict_all(model, instances, None, progress=False)
        wall = time.perf_counter() - t0
        m = output_metrics(get_task("winograd"), instances, outputs)
        out[name] = {"n": m["n"], "acc": round(m["accuracy"], 4),
                     "acc_norm": round(m["accuracy_norm"], 4),
                     "instances_per_s": round(len(instances) / wall, 1)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
