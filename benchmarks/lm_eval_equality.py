"""Benchmark: refbench and lm-evaluation-harness on the same data give the same answers.

Exports WSC273 with `refbench export lm-eval`, runs `refbench run --model llm-loglik`, runs
lm-eval's `hf` model on the export (or reads a samples file it already wrote), imports that
lm-eval run with `refbench results import-lm-eval`, and prints one JSON line: the three
accuracies, how many instances got the same choice, the largest score difference, whether the
per-document hashes and the task hash match, and the wall time of each side.

    python benchmarks/lm_eval_equality.py [--data FILE] [--samples SAMPLES.jsonl] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from refbench.runs.lm_eval.export import export_lm_eval
from refbench.runs.lm_eval.samples import import_lm_eval
from refbench.runs.runner import run_model

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "winograd" / "wsc273.jsonl"


def lm_eval_samples(tasks: Path, task: str, out: Path, *, model: Any = "hf",
                    model_args: str | None = None) -> Path:
    """Run lm-eval's Python API on the export and write its samples as --log_samples does.
    ``model``: lm-eval's model name (with ``model_args``) or an LM object (its HFLM over
    weights already loaded, as benchmarks/kitmus_llm_speed.py gives it)."""
    import lm_eval
    from lm_eval.tasks import TaskManager
    from lm_eval.utils import handle_non_serializable

    extra: dict[str, Any] = {"model_args": model_args, "device": "cpu", "batch_size": 16} \
        if isinstance(model, str) else {}
    res = lm_eval.simple_evaluate(model=model, tasks=[task], log_samples=True,
                                  task_manager=TaskManager(include_path=str(tasks)), **extra)
    stamp = "2000-01-01T00-00-00.000000"
    path = out / f"samples_{task}_{stamp}.jsonl"
    path.write_text("".join(json.dumps(s, default=handle_non_serializable) + "\n"
                            for s in sorted(res["samples"][task], key=lambda s: s["doc_id"])))
    from importlib.metadata import version

    (out / f"results_{stamp}.json").write_text(json.dumps(
        {"config": res["config"], "lm_eval_version": version("lm_eval")}, default=str))
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--samples", type=Path, default=None,
                    help="an lm-eval samples file of the export (else lm-eval runs here)")
    ap.add_argument("--run", type=Path, default=None,
                    help="a finished refbench run folder of the data (else it runs here)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lm-eval-equality-"))
    exported = export_lm_eval(args.data, work / "tasks")
    task = exported["tasks"][0]
    t0 = time.perf_counter()
    if args.run is not None:
        ours = json.loads((args.run / "metrics.json").read_text())
        run_dir = args.run
    else:
        run_dir = work / "run"
        ours = run_model("llm-loglik", args.data, run_dir, progress=False)
    refbench_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    samples = args.samples or lm_eval_samples(work / "tasks", task, work,
                                                 model_args=exported["model_args"])
    lm_eval_s = time.perf_counter() - t0
    imported = import_lm_eval([samples], args.data, work / "imported")
    mine = [json.loads(line) for line in (run_dir / "predictions.jsonl").open()]
    theirs = [json.loads(line) for line in (work / "imported" / "predictions.jsonl").open()]
    same = sum(a["answer"] == b["answer"] for a, b in zip(mine, theirs, strict=True))
    diff = max(abs(x - y) for a, b in zip(mine, theirs, strict=True)
               for x, y in zip(a["scores"], b["scores"], strict=True))
    hashes = all(a.get(k) == b.get(k) for a, b in zip(mine, theirs, strict=True)
                 for k in ("doc_hash", "prompt_hash", "target_hash"))
    print(json.dumps({
        "benchmark": "lm_eval_equality", "data": str(args.data), "n": len(mine),
        "refbench_accuracy": round(ours["accuracy"], 4),
        "lm_eval_accuracy": round(imported["lm_eval"]["accuracy"], 4),
        "imported_accuracy": round(imported["accuracy"], 4),
        "same_choice": same, "max_score_diff": float(f"{diff:.2e}"),
        "hashes_match": hashes,
        "task_hash_match": ours.get("lm_eval_task_hash") == imported.get("lm_eval_task_hash"),
        "refbench_s": None if args.run else round(refbench_s, 1),
        "lm_eval_s": None if args.samples else round(lm_eval_s, 1),
        "lm_eval_version": imported["lm_eval"]["version"]}))


if __name__ == "__main__":
    main()
