"""Benchmark: ``refbench run --engine dask`` with 1 and 2 workers (``dask scheduler`` and
``dask worker`` processes on loopback, one thread each), the ``embedding`` model on one KITMUS
subtask (background-pretrain, 2 entities, test), no cache. Reports wall times, the speed-up of
2 workers over 1, the single-process time, and whether every run's predictions are identical.
Each cluster first predicts one batch per worker (models loaded), so the timed run measures
prediction, not start-up. Prints one JSON line.

    python benchmarks/dask_run.py [--instances N]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from refbench.runs.record import RunSettings
from refbench.runs.runner import run_model

DASK = Path(sys.executable).with_name("dask")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cluster(workers: int, logs: Path) -> tuple[str, list[subprocess.Popen[bytes]]]:
    from distributed import Client

    address = f"tcp://127.0.0.1:{_port()}"
    src = Path(__file__).resolve().parents[1] / "src"
    env = dict(os.environ, HF_HUB_OFFLINE="1",
               PYTHONPATH=os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")]))
    procs = [subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port",
                               address.rsplit(":", 1)[1], "--dashboard-address", ":0"],
                              stdout=subprocess.DEVNULL, stderr=(logs / "s.log").open("w"),
                              env=env)]
    time.sleep(1)
    procs += [subprocess.Popen([str(DASK), "worker", address, "--host", "127.0.0.1",
                                "--nthreads", "1", "--dashboard-address", ":0"],
                               stdout=subprocess.DEVNULL,
                               stderr=(logs / f"w{i}.log").open("w"), env=env)
              for i in range(workers)]
    with Client(address, timeout=60) as client:
        client.wait_for_workers(workers, timeout=120)
    return address, procs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--instances", type=int, default=512, help="Test instances (default 512).")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="dask-bench-"))
    suite = tmp / "suite"
    subprocess.run([sys.executable, "-c", "from refbench.cli import main; main()", "kitmus",
                    "generate", "--out", str(suite), "--variants", "background-pretrain",
                    "--entities", "2", "--splits", "test", "--sizes",
                    f"test={args.instances}", "--formats", "jsonl", "--no-probe", "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    data = suite / "background-pretrain" / "subtask_2_ents" / "test.jsonl"
    out: dict[str, object] = {"benchmark": "dask_run", "model": "embedding",
                              "data": "KITMUS background-pretrain 2 entities test",
                              "instances": args.instances, "cpu_cores": os.cpu_count()}
    start = time.perf_counter()
    run_model("embedding", data, tmp / "local", progress=False)
    out["local_wall_s"] = round(time.perf_counter() - start, 1)
    from refbench.runs.distributed import DaskEngine

    for workers in (1, 2):
        address, procs = _cluster(workers, tmp)
        try:
            with DaskEngine(address, "embedding", None) as engine:
                # warm-up: one batch per worker loads the model everywhere
                run_model(RunSettings("embedding", limit=64 * workers), data,
                          tmp / f"warm{workers}", progress=False, engine=engine)
                start = time.perf_counter()
                run_model("embedding", data, tmp / f"dask{workers}", progress=False,
                          engine=engine)
                out[f"workers_{workers}_wall_s"] = round(time.perf_counter() - start, 1)
        finally:
            for p in reversed(procs):
                p.terminate()
                p.wait(timeout=30)
    w1, w2 = out["workers_1_wall_s"], out["workers_2_wall_s"]
    out["speedup_2_over_1"] = round(float(w1) / float(w2), 2)  # type: ignore[arg-type]
    local = (tmp / "local" / "predictions.jsonl").read_bytes()
    out["predictions_identical"] = all(
        (tmp / f"dask{w}" / "predictions.jsonl").read_bytes() == local for w in (1, 2))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
