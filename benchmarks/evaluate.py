"""Benchmark: scoring speed of `refbench evaluate` and CoNLL streaming throughput.

Prints one JSON line. Target (issue 3): one 2000-instance file scored, start-up included, at
least 5x faster than the official evaluator (about 2 s here), i.e. <= 0.4 s; CoNLL read at
>= 20 MB/s.

    python benchmarks/evaluate.py
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from refbench.tasks.kitmus.gold import read_gold
from refbench.tasks.kitmus.resources import load_resources
from refbench.tasks.kitmus.suite import generate_suite, make_config

OFFICIAL = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "kitmus-official"


def cli_seconds(*args: str, repeat: int = 7) -> float:
    """Median wall time of the real command line, interpreter start-up included."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "from refbench.cli import main; main()",
                        "evaluate", "--task", "kitmus", *args, "--json"],
                       check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="refbench-eval-bench-"))
    try:
        out: dict[str, object] = {"benchmark": "evaluate"}
        suite = tmp / "suite"
        cfg = make_config(entities=[2, 4], splits=["test"], formats=["conll", "jsonlines"])
        generate_suite(load_resources(), suite, cfg, workers=2, progress=False)
        sub = suite / "background-pretrain" / "subtask_2_ents" / "full-text"
        out["refbench_file_s"] = round(cli_seconds("--gold", str(sub / "test.v4_gold_conll"),
                                                   "--pred", str(sub / "test.jsonlines")), 3)
        out["refbench_file_mb"] = round((sub / "test.v4_gold_conll").stat().st_size / 2**20, 1)
        gold = OFFICIAL / "released/background-train/subtask_2_ents/full-text/test.v4_gold_conll.gz"
        pred = OFFICIAL / "predictions/c2f-run1.background-train.subtask_2_ents.test.jsonlines.gz"
        if gold.exists():
            out["official_c2f_file_s"] = round(cli_seconds("--gold", str(gold), "--pred",
                                                           str(pred)), 3)
        conll = sorted(suite.rglob("full-text/test.v4_gold_conll"))
        size = sum(p.stat().st_size for p in conll)
        start = time.perf_counter()
        n = sum(1 for p in conll for _ in read_gold(p))
        wall = time.perf_counter() - start
        out.update({"stream_files": len(conll), "stream_mb": round(size / 2**20, 1),
                    "stream_instances": n, "stream_mb_per_s": round(size / 2**20 / wall, 1),
                    "official_evaluator_s": 2.0, "target_s": 0.4, "target_mb_per_s": 20})
        print(json.dumps(out))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
