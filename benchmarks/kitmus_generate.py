"""Benchmark: generate the full default KITMUS suite (all variants, views, formats, native JSONL),
as ``refbench kitmus generate`` does: the similarity probe included unless ``--no-probe``.

Prints one JSON line: wall and CPU time, instances/s, MB/s written, peak RSS of the whole
process tree, and the machine's 1-minute load average while it ran (first, mean of samples
every 2 s, last). With ``--official GENERATE_PY`` it also runs the official KITMUS generator
(``generate.py`` of mpoemsl/kitmus) on the official resources afterwards, the same way (a
child process of this one), and adds its wall and CPU time, its load average and the ratio
(the refbench part is printed to stderr first, so a failing official run loses nothing).
Goal (issue 43): at least 10x the official generator, quiet, and ahead under load. On a
shared machine, run both with the same ``nice``; give the official generator the Python its
requirements pin (``--official-python``: a venv with numpy 1.21.5, pandas 1.3.5, tqdm 4.61.2).

    python benchmarks/kitmus_generate.py [--workers 2] [--no-probe] [--out DIR]
        [--official path/to/kitmus/generate.py]   # resources: ../shared/data/kitmus-official
        [--official-python venv/bin/python]
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


class _LoadMeter:
    """The machine's 1-minute load average, sampled every 2 s while a phase runs: its mean
    is the load the phase ran under (the figure each phase of the JSON line reports)."""

    def __init__(self) -> None:
        self.samples = [os.getloadavg()[0]]
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.wait(2.0):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> dict[str, float]:
        self._done.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])
        return {"first": round(self.samples[0], 2), "mean": round(sum(self.samples)
                                                                  / len(self.samples), 2),
                "last": round(self.samples[-1], 2)}


def _official(script: Path, resources: Path, work: Path, python: str) -> tuple[float, float]:
    """Wall and CPU seconds of the official generator's default run. Its CoNLL writer pads
    the document id (the export path) to a fixed width and fails when it is longer than about
    ten characters, so it runs in ``work`` with the relative export folder ``k/``."""
    export = work / "k"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([python, str(script.resolve()), "--export_dir", "k/",
                    "--resources_dir", f"{resources.resolve()}/"], cwd=work,
                   check=True, stdout=subprocess.DEVNULL,  # its stderr says why it failed
                   env=os.environ | {"PYTHONPATH": ""})  # its own modules, not refbench's
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    shutil.rmtree(export, ignore_errors=True)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-probe", action="store_true", help="Leave the similarity probe out.")
    ap.add_argument("--out", type=Path, default=None, help="Keep the suite here.")
    ap.add_argument("--official", type=Path, default=None,
                    help="The official generator's generate.py, to run afterwards.")
    ap.add_argument("--official-resources", type=Path,
                    default=Path("../shared/data/kitmus-official/resources"))
    ap.add_argument("--official-python", default=sys.executable,
                    help="The Python that runs it (its requirements pin numpy 1.21.5, pandas "
                         "1.3.5, tqdm 4.61.2: a venv of its own gives its real speed).")
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
        meter = _LoadMeter()
        start, cpu = time.perf_counter(), _cpu_s()
        res = load_resources()
        stats = generate_suite(res, out, make_config(), workers=args.workers,
                               overwrite=True, progress=False, probe=not args.no_probe)
        wall = time.perf_counter() - start
        cpu = _cpu_s() - cpu
        done.set()
        sampler.join()
        load = meter.stop()
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
            "load_avg_1min": load,
            "goal_vs_official": 10.0,
        }
        if args.official is not None:
            print(json.dumps(line), file=sys.stderr, flush=True)  # kept if the official fails
            meter = _LoadMeter()
            official, official_cpu = _official(args.official, args.official_resources, tmpdir,
                                               args.official_python)
            line |= {"official_wall_s": round(official, 2),
                     "official_cpu_s": round(official_cpu, 2),
                     "speedup_vs_official": round(official / wall, 2),
                     "official_load_avg_1min": meter.stop()}
        print(json.dumps(line))
    finally:
        done.set()
        shutil.rmtree(tmpdir, ignore_errors=True)


if __name__ == "__main__":
    main()
