"""Benchmark: ``llm-loglik`` through vLLM with automatic prefix caching on and off, on the first
N instances of a 4-entity KITMUS subtask (SmolLM2-135M exported as a Hugging Face folder).

For each setting a vLLM server is started here (``make vllm``), the instances are scored through
it by refbench's client (``--model-arg base_url=...``, the requests in prefix waves, an empty
response cache) and timed from the first request to the last answer (the server's start and a
warm-up request are not timed); vLLM's prefix-cache counters (queried and hit tokens, from its
``/metrics``) are read before and after. Prints one JSON line: each setting's seconds and
counters, the speed-up, and whether the answers agree (with each other and with the in-process
shared-prefix run), with the machine's load.

vLLM answers a request for prompt log-probabilities without reading its prefix cache (vLLM's
``SamplingParams``: ``skip_reading_prefix_cache`` defaults to true when ``prompt_logprobs`` is
set; its docs: "For a request requiring logprobs, the engine will ignore the prefix cache"), and
log-likelihood scoring through ``/v1/completions`` is exactly such a request (``echo`` with
``logprobs``). This benchmark measures what that leaves.

    python benchmarks/vllm_prefix_cache.py --suite kitmus-suite [--n 48] [--eager]
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
from machine import load_fields

ROOT = Path(__file__).resolve().parents[1]


def score(url: str, folder: Path, instances: list[Any], work: Path, name: str
          ) -> tuple[list[Any], float, dict[str, Any], dict[str, Any]]:
    """Outputs, seconds, and the prefix-cache counters before and after scoring through ``url``
    (a warm-up request first, untimed)."""
    from refbench.models.base import build_model
    from refbench.runs.runner import predict_all

    model = build_model(f"llm-loglik:{folder}", {"base_url": url,
                                                 "cache": str(work / f"{name}.sqlite")})
    assert model.server is not None
    model.server.loglik([("The cat sat on the", " mat")])  # warm-up, not timed
    before = model.server.prefix_cache()
    t0 = time.perf_counter()
    outputs, _ = predict_all(model, instances, None, progress=False)
    seconds = time.perf_counter() - t0
    return outputs, seconds, before, model.server.prefix_cache()


def counted(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    if after.get("prefix_cache") != "vllm":
        return {"prefix_cache": after.get("prefix_cache", "unknown")}
    return {k: after.get(k, 0.0) - before.get(k, 0.0) for k in ("queried_tokens", "hit_tokens")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", type=Path, required=True)
    ap.add_argument("--variant", default="background-inference-charfict-charfict")
    ap.add_argument("--n", type=int, default=48)
    ap.add_argument("--eager", action="store_true", help="vLLM without torch.compile")
    args = ap.parse_args()
    data = four_entity_test(args.suite, args.variant)
    if data is None:
        return 2
    from refbench.models.base import build_model
    from refbench.models.llm_weights import export_hf
    from refbench.models.vllm_server import vllm_python, vllm_server
    from refbench.runs.runner import predict_all
    from refbench.tasks.choices import read_choices

    python = vllm_python(ROOT)
    if python is None:
        print("no vLLM: run `make vllm` (or set REFBENCH_VLLM_PYTHON)", file=sys.stderr)
        return 2
    load = os.getloadavg()[0]
    instances = list(read_choices(data))[: args.n]
    work = Path(tempfile.mkdtemp(prefix="vllm-prefix-"))
    folder = work / "smollm2-hf"
    export_hf(None, folder)
    local, _ = predict_all(build_model("llm-loglik"), instances, None, progress=False)
    out: dict[str, Any] = {"benchmark": "vllm_prefix_cache", "data": str(data),
                           "n": len(instances), "eager": args.eager}
    answers = {}
    for caching in (True, False):
        name = "cached" if caching else "uncached"
        with vllm_server(folder, python=python, eager=args.eager, prefix_caching=caching,
                         log=work / f"vllm-{name}.log") as url:
            outputs, seconds, before, after = score(url, folder, instances, work, name)
        answers[name] = outputs
        out[f"{name}_s"] = round(seconds, 1)
        out[f"{name}_counters"] = counted(before, after)
    out["speedup"] = round(out["uncached_s"] / out["cached_s"], 2)
    out["same_answers"] = sum(a.answer == b.answer for a, b in
                              zip(answers["cached"], answers["uncached"], strict=True))
    out["same_as_in_process"] = sum(a.answer == b.answer for a, b in
                                    zip(answers["cached"], local, strict=True))
    diff = max(abs(s - t) for a, b in zip(answers["cached"], local, strict=True)
               for s, t in zip(a.scores, b.scores, strict=True))
    out["max_score_diff_vs_in_process"] = float(f"{diff:.2e}")
    print(json.dumps({**out, **load_fields(load)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
