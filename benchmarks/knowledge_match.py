"""Benchmark: knowledge-match on every variant and subtask of a suite's test split.

Goal (issue 4): >= 0.95 pronoun accuracy at 4 entities on the five background-inference
variants and background-both (published best 0.57, random 0.25). Prints one JSON line.

    python benchmarks/knowledge_match.py [--suite kitmus-suite]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from refbench.models.base import build_model
from refbench.runs.runner import predict_all
from refbench.tasks.choices import read_choices
from refbench.tasks.kitmus.generate.resources import load_resources
from refbench.tasks.kitmus.generate.suite import generate_suite, make_config
from refbench.tasks.kitmus.score.suite_eval import find_gold


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--suite", type=Path, default=None)
    ap.add_argument("--official", type=Path, default=None,
                    help="Also score an official released subtask folder tree.")
    args = ap.parse_args()
    suite = args.suite
    if suite is None:
        suite = Path(tempfile.mkdtemp(prefix="km-bench-")) / "suite"
        generate_suite(load_resources(), suite, make_config(splits=["test"], formats=["jsonl"]),
                       progress=False)
    model = build_model("knowledge-match")
    table: dict[str, dict[str, float]] = {}
    total_n, total_s = 0, 0.0
    for (variant, n), gold in sorted(find_gold(suite, "test").items()):
        instances = list(read_choices(gold))
        start = time.perf_counter()
        outputs, _ = predict_all(model, instances, None, progress=False)
        total_s += time.perf_counter() - start
        total_n += len(instances)
        acc = sum(o.answer == i.gold for o, i in zip(outputs, instances, strict=True)) / len(
            instances)
        table.setdefault(variant, {})[str(n)] = round(acc, 4)
    four = {v: r["4"] for v, r in table.items() if "4" in r}
    goal = [v for v in four if v == "background-both" or v.startswith("background-inference")]
    print(json.dumps({
        "benchmark": "knowledge_match", "suite": str(suite), "accuracy": table,
        "min_4_entities_goal_variants": min((four[v] for v in goal), default=None),
        "goal": 0.95, "instances": total_n, "instances_per_s": round(total_n / total_s, 1),
    }))


if __name__ == "__main__":
    main()
