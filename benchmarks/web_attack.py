"""Benchmark: hostile searches against ``refbench serve`` on the official KITMUS release.

Issue 23: a 490-character query of 160 prefix terms inside ``NEAR(…, 500)`` held a worker for
175 s on the 48,000-instance release. This indexes the release once (reused while unchanged),
then times

* ``before``: that query's MATCH run once, raw, as every list query of a request ran it before
  the caps (count, each facet, the page: several MATCHes per request), stopped after
  ``--before-cap-s`` seconds when it runs that long;
* ``after_hostile``: the same query sent to the app in advanced mode (refused by the caps);
* ``after_worst``: the most expensive queries the caps let through (prefix terms of two
  characters, 16 words, two NEAR groups at the largest distance; 16 plain words), each
  request's wall time and status (a 400 when the time budget ends it).

Prints one JSON line.

    python benchmarks/web_attack.py [--release DIR] [--index-dir DIR] [--before-cap-s 120]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from refbench.web.app import create_app
from refbench.web.catalog import Catalog, ServeConfig
from refbench.web.index import default_workers
from refbench.web.query import BUDGET_S, MAX_NEAR_DISTANCE

RELEASE = Path(__file__).resolve().parents[1] / "../shared/data/kitmus-official/released"


def hostile_query() -> str:
    """160 prefix terms inside NEAR(…, 500), 490 characters, as in the issue."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    terms = " ".join(f"{letters[k % 26]}*" for k in range(160))
    return f"NEAR({terms}, 500)"


def worst_allowed() -> dict[str, tuple[str, str]]:
    """The costliest searches within the caps: name -> (mode, text)."""
    prefix = "th* an* wh* he*"
    words = "the a to of and in was his her that at for"
    near = f"NEAR({prefix} {words[:15]}, {MAX_NEAR_DISTANCE})"
    return {
        "prefix_near": ("advanced", f"{near} OR NEAR(the a to of, {MAX_NEAR_DISTANCE})"),
        "prefix_or": ("advanced", "th* OR an* OR wh* OR he* OR the OR a OR to OR of"),
        "plain_16_common_words": ("plain", "the a to of and in was his her that at for is on "
                                           "with he"),
    }


def raw_match_seconds(db_path: Path, query: str, cap_s: float) -> tuple[float, bool]:
    """Seconds one raw MATCH count took, and whether it was stopped at ``cap_s``."""
    db = sqlite3.connect(db_path)
    deadline = time.monotonic() + cap_s
    db.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    start = time.perf_counter()
    stopped = False
    try:
        db.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (query,)).fetchone()
    except sqlite3.OperationalError:
        stopped = True
    finally:
        db.close()
    return time.perf_counter() - start, stopped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--release", type=Path, default=RELEASE)
    ap.add_argument("--index-dir", type=Path,
                    default=Path(tempfile.gettempdir()) / "refbench-web-attack-index")
    ap.add_argument("--before-cap-s", type=float, default=120.0)
    args = ap.parse_args()
    if not args.release.is_dir():
        sys.exit(f"error: no KITMUS release at {args.release}")
    store = args.index_dir / "results.sqlite"
    config = ServeConfig(data=[args.release.resolve()], store=store, index_dir=args.index_dir)
    catalog = Catalog(config)
    (ds,) = catalog.datasets.values()
    start = time.perf_counter()
    reused = catalog.index.is_current(ds)
    path = catalog.index.ensure(ds, progress=True, workers=default_workers())
    index_s = time.perf_counter() - start
    with sqlite3.connect(path) as db:
        n = int(db.execute("SELECT value FROM meta WHERE key = 'n'").fetchone()[0])
    app = create_app(config, catalog=catalog)
    client = app.test_client()
    query = hostile_query()

    def timed(mode: str, text: str) -> dict[str, float | int]:
        t0 = time.perf_counter()
        resp = client.get(f"/data/{ds.key}?mode={mode}&q={quote(text)}")
        return {"status": resp.status_code, "seconds": round(time.perf_counter() - t0, 3)}

    before_s, stopped = raw_match_seconds(path, query, args.before_cap_s)
    result = {
        "benchmark": "web_attack", "data": str(args.release), "instances": n,
        "index_seconds": round(index_s, 1), "index_reused": reused,
        "hostile_query_chars": len(query), "budget_s": BUDGET_S,
        "before": {"one_raw_match_seconds": round(before_s, 1),
                   "stopped_at_cap": stopped, "cap_s": args.before_cap_s},
        "after_hostile": timed("advanced", query),
        "after_worst": {name: timed(mode, text)
                        for name, (mode, text) in worst_allowed().items()},
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
