"""Benchmark: is the default KITMUS suite as hard as the official one for the similarity probe?

Goal (issue 16): the default suite's background-pretrain test split scores within 0.02 of the
official release at 4 entities (official: 0.987 / 0.937 / 0.9095 at 2 / 3 / 4 entities) on the
zero-shot MiniLM similarity probe. Also reports the built-in pool's exact expected probe
accuracy over all 60 occupations, the same over the test occupations of 20 split seeds, and
(with ``--official``) the probe measured on the official release. Prints one JSON line.

    python benchmarks/kitmus_difficulty.py [--official ../shared/data/kitmus-official]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from refbench.tasks.kitmus.generate.difficulty import (
    OFFICIAL_PROBE,
    default_encoder,
    generated_difficulty,
    pool_profile,
    suite_difficulty,
)
from refbench.tasks.kitmus.generate.instances import build_pools
from refbench.tasks.kitmus.generate.resources import load_resources
from refbench.tasks.kitmus.generate.suite import make_config


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--official", type=Path, default=None,
                    help="Official KITMUS folder (with released/): measure it too.")
    args = ap.parse_args()
    start = time.perf_counter()
    res = load_resources()
    enc = default_encoder()
    cfg = make_config(variants=["background-pretrain"], splits=["test"])
    diff = generated_difficulty(res, build_pools(res, seed=cfg.seed),
                                variants=cfg.variants, entities=cfg.entities, split="test",
                                size=cfg.sizes["test"], seed=cfg.seed, encoder=enc)
    suite = {n: p["probe_accuracy"] for n, p in diff["groups"][0]["entities"].items()}
    pool = pool_profile(res, encoder=enc)
    by_seed = [pool_profile(res, encoder=enc, rows=build_pools(res, seed=s).splits["test"]
                            .occupations)["expected_accuracy"][4] for s in range(20)]
    out = {
        "suite": f"default (seed {cfg.seed}), background-pretrain test, 2000 per subtask",
        "probe_accuracy": suite,
        "official_probe_accuracy": {str(k): v for k, v in OFFICIAL_PROBE.items()},
        "within_0.02_at_4": abs(suite["4"] - OFFICIAL_PROBE[4]) <= 0.02,
        "answer_occupation_cue": {n: p["answer_occupation_cue"]
                                  for n, p in diff["groups"][0]["entities"].items()},
        "pool_expected_accuracy": pool["expected_accuracy"],
        "pool_max_closest_word_similarity": pool["max_closest_word_similarity"],
        "test_occupations_expected_at_4_over_seeds_0_19": {
            "mean": round(statistics.mean(by_seed), 4), "min": min(by_seed),
            "max": max(by_seed)},
    }
    if args.official is not None:
        report = suite_difficulty(args.official / "released", variants=["background-train"],
                                  encoder=enc)
        out["official_measured"] = {str(n): c["probe_accuracy"]
                                    for n, c in sorted(report["background-train"].items())}
    out["wall_s"] = round(time.perf_counter() - start, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
