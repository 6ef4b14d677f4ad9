"""Benchmark: generate the full default KITMUS suite (all variants, views, formats, native JSONL).

Prints one JSON line: wall time, instances/s, MB/s written, peak RSS of the whole process tree.
Target (issue 2): <= 32 s with both cores, peak memory < 500 MB (the official generator: 324 s,
312 MB, one core).

    python benchmarks/kitmus_generate.py [--workers 2] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

from refbench.tasks.kitmus.resources import load_resources
from refbench.tasks.kitmus.suite import generate_suite, make_config


def _tree_rss_mb(root_pid: int) -> float:
    """Resident memory of a process and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/statm") as fh:
                rss[int(entry)] = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    total, stack = 0, [root_pid]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path, default=None, help="Keep the suite here.")
    args = ap.parse_args()
    tmpdir = Path(tempfile.mkdtemp(prefix="kitmus-bench-"))
    out = args.out or tmpdir / "suite"
    peak = 0.0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss_mb(os.getpid()))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        start = time.perf_counter()
        res = load_resources()
        # The generator alone: the datasheet's MiniLM probe is benchmarks/kitmus_difficulty.py's.
        stats = generate_suite(res, out, make_config(), workers=args.workers,
                               overwrite=True, progress=False, probe=False)
        wall = time.perf_counter() - start
        done.set()
        sampler.join()
        files = [p for p in out.rglob("*") if p.is_file()]
        size_mb = sum(p.stat().st_size for p in files) / 2**20
        print(json.dumps({
            "benchmark": "kitmus_generate",
            "workers": args.workers,
            "cpu_count": os.cpu_count(),
            "instances": stats["instances"],
            "files": len(files),
            "wall_s": round(wall, 2),
            "instances_per_s": round(stats["instances"] / wall, 1),
            "mb_written": round(size_mb, 1),
            "mb_per_s": round(size_mb / wall, 1),
            "peak_rss_mb": round(peak, 1),
            "target_wall_s": 32.4,
            "target_peak_rss_mb": 500,
        }))
    finally:
        done.set()
        if args.out is None:
            shutil.rmtree(tmpdir, ignore_errors=True)


if __name__ == "__main__":
    main()
