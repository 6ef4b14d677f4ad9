"""Runs past one process: shards merged, and a real Dask cluster (a ``dask scheduler`` and two
``dask worker`` processes on loopback), each equal to a run in one process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from refbench.core.errors import UsageError
from refbench.runs.shards import parse_shard, shard_range
from tests.conftest import ROOT, SHARED, needs_shared, run_cli

WSC = SHARED / "data" / "winograd" / "wsc273.jsonl"


def _winograd(path: Path, n: int) -> Path:
    """``n`` WinoGrande-format instances (enough for several batches of 64)."""
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps({"qID": f"t-{i}", "sentence": f"Ann {i} thanked Bo because _ "
                                 "helped.", "option1": "Ann", "option2": "Bo",
                                 "answer": str(1 + i % 2)}) + "\n")
    return path


def _metrics(folder: Path) -> dict[str, object]:
    m = json.loads((folder / "metrics.json").read_text())
    # the seal covers the volatile keys too (checked wherever a record is read)
    volatile = ("created", "out_dir", "predictions", "provenance", "n_cached", "run_id", "seal")
    return {k: v for k, v in m.items() if k not in volatile}


def _ok(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    r = run_cli(*args, cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r


def test_parse_shard_and_ranges() -> None:
    assert parse_shard("2/3") == (2, 3) and parse_shard(None) is None
    for bad in ("0/3", "4/3", "3", "a/b", "1/0"):
        with pytest.raises(UsageError):
            parse_shard(bad)
    env = {"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4",
           "SLURM_ARRAY_TASK_MIN": "0"}
    assert parse_shard("slurm", env) == (1, 4)
    assert parse_shard("slurm", {**env, "SLURM_ARRAY_TASK_ID": "3"}) == (4, 4)
    with pytest.raises(UsageError, match="SLURM_ARRAY_TASK_ID"):
        parse_shard("slurm", {})
    # whole batches, tiling the data, the first shards one batch larger
    ranges = [shard_range(273, 64, i, 3) for i in (1, 2, 3)]
    assert ranges == [(0, 128), (128, 256), (256, 273)]
    assert [shard_range(10, 4, i, 3) for i in (1, 2, 3)] == [(0, 4), (4, 8), (8, 10)]
    with pytest.raises(UsageError, match="at most 3 shards"):
        shard_range(10, 4, 1, 4)


def test_three_shards_merged_equal_one_run(tmp_path: Path) -> None:
    data = _winograd(tmp_path / "w.jsonl", 150)
    store = str(tmp_path / "s.sqlite")
    run = ("run", "--model", "random", "--data", str(data), "--quiet", "--store", store)
    _ok(*run, "--out", str(tmp_path / "local"), "--no-store")
    for i in (1, 2, 3):
        _ok(*run, "--out", str(tmp_path / f"s{i}"), "--shard", f"{i}/3")
    shard = json.loads((tmp_path / "s2" / "metrics.json").read_text())["shard"]
    assert shard == {"index": 2, "count": 3, "start": 64, "stop": 128, "n_total": 150}
    ls = json.loads(_ok("results", "ls", "--store", store, "--json").stdout)
    assert ls == []  # shards are not runs
    r = _ok("results", "merge", *(str(tmp_path / f"s{i}") for i in (3, 1, 2)), "--out",
            str(tmp_path / "merged"), "--store", store, "--json")
    assert json.loads(r.stdout)["n"] == 150
    assert (tmp_path / "merged" / "predictions.jsonl").read_bytes() == \
        (tmp_path / "local" / "predictions.jsonl").read_bytes()
    assert _metrics(tmp_path / "merged") == _metrics(tmp_path / "local")
    ls = json.loads(_ok("results", "ls", "--store", store, "--json").stdout)
    assert len(ls) == 1 and ls[0]["n"] == 150


def test_merge_refuses_incomplete_or_mixed_shards(tmp_path: Path) -> None:
    data = _winograd(tmp_path / "w.jsonl", 130)
    run = ("run", "--data", str(data), "--quiet", "--no-store")
    for i in (1, 2):
        _ok(*run, "--model", "random", "--out", str(tmp_path / f"r{i}"), "--shard", f"{i}/2")
    _ok(*run, "--model", "first", "--out", str(tmp_path / "f2"), "--shard", "2/2")
    _ok(*run, "--model", "random", "--out", str(tmp_path / "whole"))
    merge = ("results", "merge", "--no-store", "--out", str(tmp_path / "m"))
    cases = [((tmp_path / "r1",), "shard(s) 2 of 2 missing"),
             ((tmp_path / "r1", tmp_path / "f2"), "model 'first' differs"),
             ((tmp_path / "r1", tmp_path / "r1"), "given twice"),
             ((tmp_path / "whole",), "not a shard of a run")]
    for dirs, message in cases:
        r = run_cli(*merge, *map(str, dirs))
        assert r.returncode == 2 and message in r.stderr, r.stderr
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
        assert not (tmp_path / "m").exists()
    r = run_cli(*run, "--model", "random", "--out", str(tmp_path / "x"), "--shard", "4/3")
    assert r.returncode == 2 and "--shard 4/3" in r.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``dask scheduler`` and two single-threaded ``dask worker`` processes."""
    distributed = pytest.importorskip("distributed")
    dask_cli = Path(sys.executable).with_name("dask")
    if not dask_cli.exists():
        pytest.skip("the dask command is not installed next to this Python")
    logs = tmp_path_factory.mktemp("dask")
    address = f"tcp://127.0.0.1:{_free_port()}"
    env = dict(os.environ, HF_HUB_OFFLINE="1",
               PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT),
                                           os.environ.get("PYTHONPATH", "")]))
    procs = [subprocess.Popen([str(dask_cli), "scheduler", "--host", "127.0.0.1", "--port",
                               address.rsplit(":", 1)[1], "--dashboard-address", ":0"],
                              stdout=subprocess.DEVNULL,
                              stderr=(logs / "scheduler.log").open("w"), env=env)]
    try:
        time.sleep(1)
        procs += [subprocess.Popen([str(dask_cli), "worker", address, "--host", "127.0.0.1",
                                    "--nthreads", "1", "--dashboard-address", ":0"],
                                   stdout=subprocess.DEVNULL,
                                   stderr=(logs / f"worker{i}.log").open("w"), env=env)
                  for i in (1, 2)]
        with distributed.Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


def test_dask_cluster_run_equals_local_run_and_uses_the_cache(tmp_path: Path,
                                                              cluster: str) -> None:
    data = _winograd(tmp_path / "w.jsonl", 200)
    store = str(tmp_path / "s.sqlite")
    run = ("run", "--model", "random", "--data", str(data), "--quiet")
    _ok(*run, "--out", str(tmp_path / "local"), "--no-store")
    # one shard first: its predictions are cached, and the cluster run only computes the rest
    _ok(*run, "--out", str(tmp_path / "s1"), "--shard", "1/2", "--store", store)
    r = _ok(*run, "--out", str(tmp_path / "dask"), "--store", store, "--engine", "dask",
            "--scheduler", cluster, "--json")
    assert json.loads(r.stdout)["n_cached"] == 128
    assert (tmp_path / "dask" / "predictions.jsonl").read_bytes() == \
        (tmp_path / "local" / "predictions.jsonl").read_bytes()
    assert _metrics(tmp_path / "dask") == _metrics(tmp_path / "local")


@needs_shared(WSC)
def test_dask_cluster_embedding_on_wsc273_equals_local(tmp_path: Path, cluster: str) -> None:
    """A real model (MiniLM embeddings) on real data: the workers' scores are the local ones,
    byte for byte (two batches of 64, to keep it short)."""
    run = ("run", "--model", "embedding", "--data", str(WSC), "--limit", "128", "--quiet",
           "--no-store")
    _ok(*run, "--out", str(tmp_path / "local"))
    _ok(*run, "--out", str(tmp_path / "dask"), "--engine", "dask", "--scheduler", cluster)
    assert (tmp_path / "dask" / "predictions.jsonl").read_bytes() == \
        (tmp_path / "local" / "predictions.jsonl").read_bytes()


def test_engine_options_are_checked(tmp_path: Path) -> None:
    data = _winograd(tmp_path / "w.jsonl", 3)
    r = run_cli("run", "--model", "first", "--data", str(data), "--no-store", "--out",
                str(tmp_path / "o"), "--scheduler", "tcp://127.0.0.1:1")
    assert r.returncode == 2 and "--scheduler is for --engine dask" in r.stderr
    r = run_cli("run", "--model", "first", "--data", str(data), "--no-store", "--out",
                str(tmp_path / "o"), "--engine", "dask")
    assert r.returncode == 2 and "needs --scheduler" in r.stderr
