"""Benchmark: the web app's first compare page in a fresh process, and its charts apart.

Two baselines (``first``, ``random``) are run on one 4-entity KITMUS file into a store of
their own; then a fresh interpreter creates the app, builds the dataset's index (not timed
here: ``benchmarks/web_serve.py`` times indexing), and times, through Flask's test client,
the first ``/compare`` page of the two systems (what a user waits for: imports included), the
same page again, its significance fragment, and each chart the page lists (each drawn on its
own request). Prints one JSON line with the machine's load.

Issue 43: the first compare page took 5.4 s (matplotlib imported and charts drawn to decide
what the page lists); target about a second.

    python benchmarks/web_compare.py [--data FILE] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from machine import load_fields  # benchmarks/ on path

DATA = (Path(__file__).resolve().parents[1].parent / "shared" / "data" / "kitmus-official"
        / "released" / "background-train" / "subtask_4_ents" / "full-text"
        / "test.v4_gold_conll.gz")

PROBE = r"""
import json, re, sys, time
from pathlib import Path
start = time.perf_counter()
from refbench.web.app import create_app
from refbench.web.catalog import ServeConfig
data, store, index = (Path(a) for a in sys.argv[1:4])
app = create_app(ServeConfig(data=[data], run_dirs=[], store=store, index_dir=index))
cat = app.config["CATALOG"]
ds = next(d for d in cat.datasets.values() if len(cat.systems(d)) >= 2)
systems = cat.systems(ds)
for s in systems:
    from refbench.web.predictions import ensure_system
    ensure_system(cat.index, ds, s)
cat.index.ensure(ds)
ready = time.perf_counter()
client = app.test_client()
url = f"/compare?data={ds.key}&" + "&".join(f"sys={s.sid}" for s in systems[:2])
def timed(u):
    t = time.perf_counter()
    r = client.get(u)
    return round(time.perf_counter() - t, 3), r
first, resp = timed(url)
mpl = "matplotlib" in sys.modules
body = resp.get_data(as_text=True)
again, _ = timed(url)
sig, sig_resp = timed(url.replace("/compare?", "/compare/significance?"))
charts = {}
for u in re.findall(r'<img src="(/charts/[^"]+)"', body):
    u = u.replace("&amp;", "&")
    s, r = timed(u)
    charts[u.split("?")[0].rsplit("/", 1)[-1]] = {"s": s, "status": r.status_code}
print(json.dumps({"status": resp.status_code, "app_ready_s": round(ready - start, 3),
                  "first_compare_s": first, "compare_again_s": again,
                  "significance_s": sig, "significance_status": sig_resp.status_code,
                  "charts": charts, "n": len(systems),
                  "matplotlib_after_page": mpl}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if not args.data.exists():
        raise SystemExit(f"{args.data} not present (../shared/data)")
    tmp = Path(tempfile.mkdtemp(prefix="refbench-compare-bench-"))
    env = dict(os.environ, HF_HUB_OFFLINE="1", REFBENCH_CACHE_DIR=str(tmp / "cache"))
    load_before = os.getloadavg()
    try:
        store = tmp / "results.sqlite"
        for model in ("first", "random"):
            subprocess.run([sys.executable, "-m", "refbench", "run", "--model", model,
                            "--data", str(args.data), "--out", str(tmp / model),
                            "--store", str(store)], check=True, capture_output=True, env=env)
        rounds = []
        for _ in range(args.repeat):
            # a fresh index folder each round would time indexing: keep it, as a second start
            done = subprocess.run([sys.executable, "-c", PROBE, str(args.data), str(store),
                                   str(tmp / "index")], check=True, capture_output=True,
                                  text=True, env=env)
            rounds.append(json.loads(done.stdout.strip().splitlines()[-1]))
        med = {k: round(statistics.median(r[k] for r in rounds), 3)
               for k in ("first_compare_s", "compare_again_s", "significance_s")}
        kinds = sorted({k for r in rounds for k in r["charts"]})
        out = {"benchmark": "web_compare", "data": str(args.data), "repeat": args.repeat,
               **med, "status": rounds[-1]["status"],
               "charts_s": {k: round(statistics.median(r["charts"][k]["s"] for r in rounds
                                                        if k in r["charts"]), 3)
                            for k in kinds},
               "charts_status": {k: rounds[-1]["charts"].get(k, {}).get("status")
                                 for k in kinds},
               "matplotlib_imported_by_page": rounds[-1]["matplotlib_after_page"],
               "target_first_compare_s": 1.0,
               **load_fields(load_before[0])}
        print(json.dumps(out))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
