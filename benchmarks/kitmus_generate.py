"""Benchmark: generate the full default KITMUS suite (all variants, views, formats, native JSONL),
as ``refbench kitmus generate`` does: the similarity probe included unless ``--no-probe``.

Prints one JSON line: wall and CPU time, instances/s, MB/s written, peak RSS of the whole
process tree, and the machine's 1-minute load average before and after. With ``--official
GENERATE_PY`` it also runs the official KITMUS generator (``generate.py`` of mpoemsl/kitmus)
on the official resources afterwards, the same way (a child process of this one), and prints
its wall time and the ratio. Goal (issue 43): at least 10x the official generator, quiet, and
ahead under load. On a shared machine, run both with the same ``nice``.

    python benchmarks/kitmus_generate.py [--workers 2] [--no-probe] [--out DIR]
        [--official path/to/kitmus/generate.py]   # resources: ../shared/data/kitmus-official
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from refbench.tasks.kitmus.generate.resources import load_resources
from refbench.tasks.kitmus.generate.suite import generate_suite, make_config


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


def _cpu_s() -> float:
    """CPU seconds of this process and its waited-for children (the workers)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _official(script: Path, resources: Path, work: Path) -> float:
    """Wall seconds of the official generator's default run (its export path kept short: its
    CoNLL writer breaks on long ones)."""
    export = work / "k"
    start = time.perf_counter()
    subprocess.run([sys.executable, str(script.resolve()), "--export_dir", f"{export}/",
                    "--resources_dir", f"{resources.resolve()}/"], cwd=script.parent,
                   check=True, stdout=subprocess.DEVNULL)  # its stderr says why it failed
    wall = time.perf_counter() - start
    shutil.rmtree(export, ignore_errors=True)
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-probe", action="store_true", help="Leave the similarity probe out.")
    ap.add_argument("--out", type=Path, default=None, help="Keep the suite here.")
    ap.add_argument("--official", type=Path, default=None,
                    help="The official generator's generate.py, to run afterwards.")
    ap.add_argument("--official-resources", type=Path,
                    default=Path("../shared/data/kitmus-official/resources"))
    args = ap.parse_args()
    tmpdir = Path(tempfile.mkdtemp(prefix="kg-"))
    out = args.out or tmpdir / "suite"
    peak = 0.0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss_mb(os.getpid()))
            time.sleep(0.5)  # a /proc scan costs CPU, counted in cpu_s

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        load_before = os.getloadavg()[0]
        start, cpu = time.perf_counter(), _cpu_s()
        res = load_resources()
        stats = generate_suite(res, out, make_config(), workers=args.workers,
                               overwrite=True, progress=False, probe=not args.no_probe)
        wall = time.perf_counter() - start
        cpu = _cpu_s() - cpu
        done.set()
        sampler.join()
        load_after = os.getloadavg()[0]
        files = [p for p in out.rglob("*") if p.is_file()]
        size_mb = sum(p.stat().st_size for p in files) / 2**20
        if args.out is None:
            shutil.rmtree(out, ignore_errors=True)
        line = {
            "benchmark": "kitmus_generate",
            "probe": not args.no_probe,
            "workers": args.workers,
            "cpu_count": os.cpu_count(),
            "instances": stats["instances"],
            "files": len(files),
            "wall_s": round(wall, 2),
            "cpu_s": round(cpu, 2),
            "instances_per_s": round(stats["instances"] / wall, 1),
            "mb_written": round(size_mb, 1),
            "mb_per_s": round(size_mb / wall, 1),
            "peak_rss_mb": round(peak, 1),
            "load_avg_1min": [round(load_before, 2), round(load_after, 2)],
            "goal_vs_official": 10.0,
        }
        if args.official is not None:
            official = _official(args.official, args.official_resources, tmpdir)
            line |= {"official_wall_s": round(official, 2),
                     "speedup_vs_official": round(official / wall, 2),
                     "load_avg_1min_after_official": round(os.getloadavg()[0], 2)}
        print(json.dumps(line))
    finally:
        done.set()
        shutil.rmtree(tmpdir, ignore_errors=True)


if __name__ == "__main__":
    main()
