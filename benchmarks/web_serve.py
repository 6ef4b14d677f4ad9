"""Benchmark: ``refbench serve`` over every release with about a hundred runs, as a user
starts it: the first page with no index yet, the first page on a second start (the indexes
reused), the leaderboard and a comparison, each timed over HTTP against the real server.

Prints one JSON line. Targets (issue 43): the first page within 10 s of the start with no
index, within 3 s on a second start, the leaderboard within 2 s.

The runs (cheap baselines over every release: ``benchmarks/web_serve_runs.py``) are made once
into ``--work`` (default: a temporary folder), at the lowest priority; give the same
``--work`` again to reuse them. Each measurement starts from an empty cache folder.

    python benchmarks/web_serve.py [--data ../shared/data] [--work DIR] [--index-wait 900]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str, timeout: float = 120) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return int(resp.status), resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.read().decode("utf-8", "replace")


def _timed(url: str) -> tuple[float, int, str]:
    start = time.perf_counter()
    status, body = _get(url)
    return round(time.perf_counter() - start, 3), status, body


class Server:
    """``refbench serve DATA --store S --port P`` with its own cache folder."""

    def __init__(self, data: Path, store: Path, cache: Path) -> None:
        self.port = _port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, HF_HUB_OFFLINE="1", REFBENCH_CACHE_DIR=str(cache))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.log = (cache.parent / f"serve-{self.port}.log").open("w")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from refbench.cli import main; main()", "serve", str(data),
             "--store", str(store), "--port", str(self.port)],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)

    def first_page(self, limit: float = 600) -> float:
        """Seconds from the start until the home page answers 200."""
        while time.perf_counter() - self.started < limit:
            if self.proc.poll() is not None:
                raise SystemExit(f"serve exited {self.proc.returncode}: see {self.log.name}")
            try:
                status, _ = _get(self.base + "/", timeout=30)
                if status == 200:
                    return round(time.perf_counter() - self.started, 3)
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.05)
        raise SystemExit(f"no page within {limit} s")

    def indexed(self, limit: float) -> float | None:
        """Seconds from the start until the home page lists no dataset still to index."""
        while time.perf_counter() - self.started < limit:
            status, body = _get(self.base + "/")
            if status == 200 and "indexing" not in body and "queued for" not in body:
                return round(time.perf_counter() - self.started, 1)
            time.sleep(1)
        return None

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def _compare_url(data: Path, store: Path, cache: Path) -> str | None:
    """A comparison of two systems on the largest dataset with runs."""
    os.environ["REFBENCH_CACHE_DIR"] = str(cache)
    from refbench.web.catalog import Catalog, ServeConfig

    catalog = Catalog(ServeConfig(data=[data], store=store))
    with_runs = [(len(ds.files), ds) for ds in catalog.datasets.values()
                 if len(catalog.systems(ds)) >= 2 and ds.task.documents is None]
    if not with_runs:
        return None
    ds = max(with_runs, key=lambda x: x[0])[1]
    sids = "&".join(f"sys={s.sid}" for s in catalog.systems(ds)[:2])
    return f"/compare?data={ds.key}&{sids}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--work", type=Path, default=None,
                    help="Where the runs are made (and kept for the next time).")
    ap.add_argument("--index-wait", type=float, default=900,
                    help="How long to wait for the background indexing to finish.")
    args = ap.parse_args()
    if not args.data.is_dir():
        raise SystemExit(f"{args.data} not present")
    work = args.work or Path(tempfile.mkdtemp(prefix="web-bench-"))
    store = work / "results.sqlite"
    made = time.perf_counter()
    subprocess.run(["nice", "-n", "19", sys.executable, "-c",
                    "import sys; sys.path.insert(0, sys.argv[1]); from web_serve_runs import "
                    "make_runs; from pathlib import Path; make_runs(Path(sys.argv[2]), "
                    "Path(sys.argv[3]))", str(HERE), str(args.data), str(work)], check=True,
                   env=dict(os.environ, HF_HUB_OFFLINE="1",
                            REFBENCH_CACHE_DIR=str(work / "cache-runs")))
    runs_s = round(time.perf_counter() - made, 1)
    cache = work / "cache-bench"
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    load = os.getloadavg()[0]
    out: dict[str, Any] = {"benchmark": "web_serve", "data": str(args.data)}

    first = Server(args.data, store, cache)
    try:
        out["first_page_no_index_s"] = first.first_page()
        out["leaderboard_while_indexing_s"], status, _ = _timed(first.base + "/leaderboard")
        out["leaderboard_while_indexing_status"] = status
        out["indexing_done_s"] = first.indexed(args.index_wait)
    finally:
        first.stop()
    compare = _compare_url(args.data, store, cache)
    second = Server(args.data, store, cache)
    try:
        out["first_page_second_start_s"] = second.first_page()
        second.indexed(args.index_wait)  # the predictions checked again: pages as a user sees
        out["leaderboard_s"], status, body = _timed(second.base + "/leaderboard")
        out["leaderboard_status"] = status
        out["leaderboard_again_s"], _, _ = _timed(second.base + "/leaderboard")
        out["home_s"], _, _ = _timed(second.base + "/")
        if compare is not None:
            out["compare_s"], out["compare_status"], _ = _timed(second.base + compare)
            out["compare_again_s"], _, _ = _timed(second.base + compare)
    finally:
        second.stop()
    from refbench.runs.store import Store

    with Store(store, readonly=True) as st:
        out["runs"] = len(st.runs(limit=None))
    out.update({"make_runs_s": runs_s, "leaderboard_kb": round(len(body) / 1024),
                "index_mb": round(sum(p.stat().st_size for p in cache.rglob("*.sqlite"))
                                  / 2**20, 1),
                "targets": {"first_page_no_index_s": 10, "first_page_second_start_s": 3,
                            "leaderboard_s": 2},
                "load_avg_1m_start": round(load, 1),
                "load_avg_1m_end": round(os.getloadavg()[0], 1), "cpus": os.cpu_count()})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
