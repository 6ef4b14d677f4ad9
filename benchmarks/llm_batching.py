"""Benchmark: batched llm-loglik scoring against one sequence per forward pass, on WSC273.

Both runs use the same model object settings except ``batch_size`` (sequences per forward pass);
the instances are the same and are predicted in the runner's chunks. Prints one JSON line: wall
time and instances/s of each, the speed-up, accuracy of each, and the largest absolute
difference between their log-likelihoods. Goal: speed-up >= 5 with identical answers and
log-likelihoods within 1e-4.

    python benchmarks/llm_batching.py [--batch-size 16] [--limit N] [--threads N] [--device auto]
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
    import torch

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--device", default="auto")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    instances = list(read_choices(DATA / "wsc273.jsonl"))[: args.limit]
    result: dict[str, object] = {"benchmark": "llm_batching", "data": "wsc273",
                                 "n": len(instances), "threads": torch.get_num_threads()}
    scores = {}
    for label, bs in (("batched", args.batch_size), ("one_at_a_time", 1)):
        model = build_model("llm-loglik", {"batch_size": bs, "device": args.device})
        t0 = time.perf_counter()
        outputs, _ = predict_all(model, instances, None, progress=False)
        wall = time.perf_counter() - t0
        scores[label] = [s for o in outputs for s in o.scores]
        m = output_metrics(get_task("winograd"), instances, outputs)
        result[label] = {"batch_size": bs, "wall_s": round(wall, 1),
                         "instances_per_s": round(len(instances) / wall, 2),
                         "acc": round(m["accuracy"], 4), "acc_norm": round(m["accuracy_norm"], 4),
                         "answers": [o.answer for o in outputs]}
        result["device"] = str(model.device)  # type: ignore[attr-defined]
    b, u = result["batched"], result["one_at_a_time"]
    assert isinstance(b, dict) and isinstance(u, dict)
    result["speedup"] = round(u["wall_s"] / b["wall_s"], 2)
    result["same_answers"] = b.pop("answers") == u.pop("answers")
    result["max_abs_loglik_diff"] = max(abs(x - y) for x, y in zip(
        scores["batched"], scores["one_at_a_time"], strict=True))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
