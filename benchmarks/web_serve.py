"""Benchmark: the web app on a KITMUS suite, as ``refbench serve`` runs it.

Measures indexing the suite from scratch (forked readers, as at start-up), reusing the index,
the first page of the dataset, a search, a slice filter, a page deep in the list, an instance
page, and peak memory (the server process and its largest reader process). Prints one JSON line.
Targets (issue 14): first page of a 48,000-instance suite under 1 s after indexing; indexing
the default suite under 30 s and reused; bounded memory.

    python benchmarks/web_serve.py [--suite DIR | --splits test | --full] [--store S]

Without ``--suite`` a suite is generated first with ``refbench kitmus generate`` (``--splits
test`` by default: 48,000 instances; ``--full``: the default suite, 105,600).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from refbench.web.app import create_app
from refbench.web.catalog import Catalog, ServeConfig
from refbench.web.index import default_workers
from refbench.web.predictions import ensure_system
from refbench.web.serve import prepare

CPU_TIMES: dict[str, float] = {}


def _timed_get(client: object, url: str) -> float:
    """Wall seconds of one request (and its CPU seconds, kept in CPU_TIMES)."""
    cpu = time.process_time()
    start = time.perf_counter()
    resp = client.get(url)  # type: ignore[attr-defined]
    elapsed = time.perf_counter() - start
    CPU_TIMES[url] = round(time.process_time() - cpu, 3)
    if resp.status_code != 200:
        raise SystemExit(f"{url}: HTTP {resp.status_code}")
    return round(elapsed, 3)


def _cpu() -> tuple[float, float]:
    """CPU seconds used so far by this process and by its finished children (the readers):
    unlike wall time, they do not depend on what else the machine is running."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--suite", type=Path, default=None, help="An existing suite folder.")
    ap.add_argument("--splits", default="test", help="Splits to generate (without --suite).")
    ap.add_argument("--full", action="store_true", help="Generate the full default suite.")
    ap.add_argument("--store", type=Path, default=None,
                    help="A results store whose runs on the suite are loaded too.")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="web-bench-"))
    suite = args.suite
    generate_s = None
    if suite is None:
        suite = tmp / "suite"
        cmd = [sys.executable, "-c", "from refbench.cli import main; main()", "kitmus",
               "generate", "--out", str(suite)]
        if not args.full:
            cmd += ["--splits", args.splits]
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        generate_s = round(time.perf_counter() - start, 1)
    store = args.store or tmp / "store" / "results.sqlite"
    config = ServeConfig(data=[suite], store=store, index_dir=tmp / "index")

    catalog = Catalog(config)
    ds = next(iter(catalog.datasets.values()))
    cpu0 = _cpu()
    start = time.perf_counter()
    catalog.index.ensure(ds, workers=default_workers())
    index_s = time.perf_counter() - start
    cpu1 = _cpu()
    rss_indexed = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    for system in catalog.systems(ds):
        ensure_system(catalog.index, ds, system)
    predictions_s = time.perf_counter() - start
    prepare(catalog, progress=False)  # the store's other runs' data, not timed
    start = time.perf_counter()
    again = Catalog(config)
    prepare(again, progress=False)
    reuse_s = time.perf_counter() - start

    client = create_app(config, catalog=Catalog(config)).test_client()
    base = f"/data/{ds.key}"
    from refbench.web import index as idx

    with catalog.index.connect(ds) as db:
        n = idx.count(db)
        deep = n - 60
    pages = {
        "first_page_s": _timed_get(client, base),
        "first_page_again_s": _timed_get(client, base),
        "search_s": _timed_get(client, base + "?q=%22harbour+promenade%22"),
        "search_and_slice_s": _timed_get(client, base + "?q=career&f.entities=4"),
        "slice_s": _timed_get(client, base + "?f.variant=background-both&f.pronoun=they"),
        "deep_page_s": _timed_get(client, base + f"?after={deep}"),
        "instance_s": _timed_get(client, base + f"/{n // 2}"),
    }
    systems = catalog.systems(ds)
    if len(systems) >= 2:
        sys_args = "&".join(f"sys={s.sid}" for s in systems[:3])
        pages["compare_s"] = _timed_get(client, f"/compare?data={ds.key}&{sys_args}")
        pages["significance_s"] = _timed_get(
            client, f"/compare/significance?data={ds.key}&{sys_args}")
    index_file = catalog.index.path_for(ds)
    print(json.dumps({
        "benchmark": "web_serve", "suite": str(suite), "instances": n,
        "files": len(ds.files), "generate_s": generate_s, "index_s": round(index_s, 1),
        "index_inst_per_s": round(n / index_s), "reuse_s": round(reuse_s, 3),
        "index_cpu_writer_s": round(cpu1[0] - cpu0[0], 1),
        "index_cpu_readers_s": round(cpu1[1] - cpu0[1], 1),
        "load_predictions_s": round(predictions_s, 1),
        "peak_rss_after_index_mb": round(rss_indexed),
        "workers": default_workers(), "index_mb": round(index_file.stat().st_size / 2**20, 1),
        **pages, "first_page_cpu_s": CPU_TIMES[base], "systems": len(systems),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "peak_reader_rss_mb": round(
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
        "load_avg_1m": round(os.getloadavg()[0], 1), "cpus": os.cpu_count(),
    }))


if __name__ == "__main__":
    main()
