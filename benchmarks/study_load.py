"""Benchmark: a study server under concurrent annotators (issue 15).

10 annotators each open and answer their items of a 500-item KITMUS validation against a real
``refbench study serve`` on 127.0.0.1 (one page load and one JSON save per answer). Prints one
JSON line: wall time, answers per second, page and save latency percentiles, and whether the
export holds exactly the answers sent.

    python benchmarks/study_load.py                # overlap 1: 500 answers
    python benchmarks/study_load.py --overlap 10   # every annotator answers every item: 5,000
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.web.study.server_harness import Server, get, post_answer

from refbench.studies.export import export
from refbench.studyfile.db import StudyStore
from refbench.tasks.kitmus.generate.resources import load_resources
from refbench.tasks.kitmus.generate.suite import generate_suite, make_config
from refbench.tasks.kitmus.study import create_kitmus_study


def pct(values: list[float], q: float) -> float:
    return round(1000 * statistics.quantiles(values, n=100)[int(q) - 1], 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=500)
    ap.add_argument("--annotators", type=int, default=10)
    ap.add_argument("--overlap", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "suite"
        cfg = make_config(variants=["background-pretrain"], entities=[2], splits=["test"],
                          formats=["jsonl"], sizes={"test": args.items}, seed=3)
        generate_suite(load_resources(), suite, cfg, progress=False)
        study = Path(tmp) / "load.sqlite"
        names = [f"ann{i}" for i in range(1, args.annotators + 1)]
        create_kitmus_study(suite, study, n=args.items, conditions=["with-knowledge"],
                            gold_checks=0, annotators=names, seed=0, overlap=args.overlap,
                            progress=False)
        with StudyStore(study) as st:
            counts = {a.name: len(st.assignments(a.id)) for a in st.annotators()}
        server = Server(study)
        pages: list[float] = []
        saves: list[float] = []

        def annotate(name: str) -> int:
            link = server.links[name]
            for pos in range(1, counts[name] + 1):
                t0 = time.perf_counter()
                status, _ = get(f"{link}{pos}")
                t1 = time.perf_counter()
                code, body = post_answer(link, pos, {"choice": str(pos % 2)})
                t2 = time.perf_counter()
                assert status == 200 and code == 200 and body["ok"]
                pages.append(t1 - t0)
                saves.append(t2 - t1)
            return counts[name]

        try:
            start = time.perf_counter()
            with ThreadPoolExecutor(len(names)) as pool:
                sent = sum(pool.map(annotate, names))
            wall = time.perf_counter() - start
            text, _ = export(study, "csv", None)
        finally:
            server.stop()
        rows = list(csv.DictReader(io.StringIO(text or "")))
        print(json.dumps({
            "benchmark": "study_load", "items": args.items, "annotators": args.annotators,
            "overlap": args.overlap, "answers_sent": sent, "answers_exported": len(rows),
            "exact": len(rows) == sent, "wall_s": round(wall, 2),
            "answers_per_s": round(sent / wall, 1),
            "page_ms_p50": pct(pages, 50), "page_ms_p95": pct(pages, 95),
            "save_ms_p50": pct(saves, 50), "save_ms_p95": pct(saves, 95),
        }))


if __name__ == "__main__":
    main()
