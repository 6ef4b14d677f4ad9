"""Benchmark: instances per second of every registered model on this CPU (KITMUS 4-entity
test instances; llm-chat excluded: it measures an endpoint, not this machine). Prints one
JSON line.

    python benchmarks/throughput.py [--n 200] [--cross-encoder DIR]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from refbench.core.registry import MODELS
from refbench.models.base import build_model
from refbench.tasks.choices import read_choices
from refbench.tasks.kitmus.generate.resources import load_resources
from refbench.tasks.kitmus.generate.suite import generate_suite, make_config


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--cross-encoder", default=None, help="A trained cross-encoder folder.")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tp-bench-"))
    generate_suite(load_resources(), tmp / "s", make_config(
        variants=["background-both"], entities=[4], splits=["test"], formats=["jsonl", "conll"],
        sizes={"test": args.n}), progress=False)
    data = tmp / "s" / "background-both" / "subtask_4_ents" / "test.jsonl"
    instances = list(read_choices(data))
    rates: dict[str, float] = {}
    for name in MODELS.names():
        if name == "llm-chat":
            continue
        spec = name
        if name == "coref-output":
            conll = tmp / "s/background-both/subtask_4_ents/full-text/test.v4_gold_conll"
            spec = f"coref-output:{conll}"
        if name == "cross-encoder" and args.cross_encoder:
            spec = f"cross-encoder:{args.cross_encoder}"
        model = build_model(spec)
        model.prepare(data, "kitmus")
        batch = instances if name != "llm-loglik" else instances[: max(10, args.n // 10)]
        start = time.perf_counter()
        for i in range(0, len(batch), model.batch_size):
            model.predict(batch[i:i + model.batch_size])
        rates[name] = round(len(batch) / (time.perf_counter() - start), 1)
    print(json.dumps({"benchmark": "throughput", "instances": "KITMUS background-both 4 "
                      "entities", "instances_per_s": rates}))


if __name__ == "__main__":
    main()
