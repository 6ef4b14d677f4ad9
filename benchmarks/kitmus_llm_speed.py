"""Benchmark: shared-prefix scoring against scoring each candidate alone, and against
lm-evaluation-harness, on the first N instances of a 4-entity KITMUS subtask (SmolLM2).

Three runs of the same instances and weights: ``refbench run --model llm-loglik`` (shared
prefix, the default), the same with ``prefix=none`` (each candidate its own sequence), and
lm-eval's ``hf`` model on the ``refbench export lm-eval`` export of the same file (imported back
with ``refbench results import-lm-eval``). Prints one JSON line: each side's wall and CPU
seconds of scoring (the process's CPU time, all threads: on a shared machine wall time mostly
measures the neighbours; loading the weights is not timed on any side), the speed-ups,
whether the answers are the same and the largest score difference,
and the machine's load.

``--template NAME`` measures one of KITMUS' LLM templates (the export for lm-eval carries the
same template): the substitution form shares the text before the pronoun, a question form the
whole prompt.

    python benchmarks/kitmus_llm_speed.py --suite kitmus-suite [--n 200] [--no-lm-eval]
    python benchmarks/kitmus_llm_speed.py --suite kitmus-suite --template question
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kitmus_llm import four_entity_test
from lm_eval_equality import lm_eval_samples
from machine import load_fields


def timed(fn: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def answers(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "predictions.jsonl").open(encoding="utf-8")]


def compare(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> dict[str, Any]:
    same = sum(x["answer"] == y["answer"] for x, y in zip(a, b, strict=True))
    diff = max(abs(s - t) for x, y in zip(a, b, strict=True)
               for s, t in zip(x["scores"], y["scores"], strict=True))
    return {"same_answers": same, "of": len(a), "max_score_diff": float(f"{diff:.2e}")}


def hf_lm() -> Any:
    """lm-eval's ``hf`` model around the weights ``llm-loglik`` loads (SmolLM2, float32)."""
    from lm_eval.models.huggingface import HFLM

    from refbench.models.llm_weights import load

    tokenizer, model, _ = load(None)
    return HFLM(pretrained=model, tokenizer=tokenizer, batch_size=16, device="cpu")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", type=Path, required=True)
    ap.add_argument("--variant", default="background-inference-charfict-charfict")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--template", default="substitution",
                    help="a KITMUS LLM template (tasks/kitmus/llm_templates.json)")
    ap.add_argument("--no-lm-eval", action="store_true")
    args = ap.parse_args()
    data = four_entity_test(args.suite, args.variant)
    if data is None:
        return 2
    load = os.getloadavg()[0]
    from refbench.runs.record import RunSettings
    from refbench.runs.runner import run_model

    work = Path(tempfile.mkdtemp(prefix="kitmus-llm-speed-"))
    sample = work / "test.jsonl"  # the first N lines: the same instances for every side
    lines = data.read_text(encoding="utf-8").splitlines(keepends=True)[: args.n]
    sample.write_text("".join(lines), encoding="utf-8")
    out: dict[str, Any] = {"benchmark": "kitmus_llm_speed", "data": str(data),
                           "n": len(lines), "template": args.template}
    from refbench.models.base import build_model

    sides = {}
    for prefix in ("shared", "none"):
        options = {"prefix": prefix, "template": args.template}
        settings = RunSettings(model="llm-loglik", model_options=options)
        model = build_model("llm-loglik", options)  # loading is not timed
        m, wall, cpu = timed(lambda s=settings, p=prefix, b=model: run_model(
            s, sample, work / p, store=None, progress=False, model=b))
        del model
        sides[prefix] = (wall, cpu)
        out[f"{prefix}_accuracy"] = round(m["accuracy"], 4)
        out[f"{prefix}_wall_s"], out[f"{prefix}_cpu_s"] = round(wall, 1), round(cpu, 1)
    out["alone_vs_shared"] = compare(answers(work / "shared"), answers(work / "none"))
    out["speedup_vs_alone_cpu"] = round(sides["none"][1] / sides["shared"][1], 2)
    out["speedup_vs_alone_wall"] = round(sides["none"][0] / sides["shared"][0], 2)
    if not args.no_lm_eval:
        from refbench.runs.lm_eval.export import export_lm_eval
        from refbench.runs.lm_eval.samples import import_lm_eval

        exported = export_lm_eval(sample, work / "tasks", template=args.template)
        task = exported["tasks"][0]
        lm = hf_lm()  # the same weights, loaded as refbench loads them (not timed)
        samples, wall, cpu = timed(lambda: lm_eval_samples(work / "tasks", task, work, model=lm))
        import_lm_eval([samples], sample, work / "imported")
        out["lm_eval_wall_s"], out["lm_eval_cpu_s"] = round(wall, 1), round(cpu, 1)
        out["lm_eval_vs_shared"] = compare(answers(work / "shared"), answers(work / "imported"))
        out["speedup_vs_lm_eval_cpu"] = round(cpu / sides["shared"][1], 2)
        out["speedup_vs_lm_eval_wall"] = round(wall / sides["shared"][0], 2)
    print(json.dumps({**out, **load_fields(load)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
