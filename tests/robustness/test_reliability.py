"""The newest paths under faults (issue 33), beyond what the bad-input table can make: services
that are not HTTP or not a Dask scheduler behind a real socket, processes killed half-way
through an export or a merge, exports into earlier exports, and a worker pool that can always
be stopped (the interrupted ``kitmus generate`` that never exited)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from refbench.core.errors import OutputError, RefbenchError
from refbench.core.process_pool import WorkerDied, WorkerPool
from tests.robustness.harness import Case, invoke, problems, snapshot
from tests.robustness.support import TINY, make_support
from tests.robustness.test_faults import AS_AT_A_TERMINAL, GENERATE, _children, _wait_for

LINUX = sys.platform.startswith("linux")
WSC = Path(__file__).resolve().parents[1] / "fixtures" / "winograd" / "wsc-tiny.jsonl"


@pytest.fixture(scope="module")
def support(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_support(tmp_path_factory.mktemp("support"))


def _promise(args: list[str], case_dir: Path, fragment: str) -> None:
    """``refbench ARGS`` keeps the bad-input promise: exit 2, one ``error E...`` line holding
    ``fragment``, no traceback, nothing left in ``case_dir``."""
    case_dir.mkdir(exist_ok=True)
    before = snapshot(case_dir)
    out = invoke(args, cwd=case_dir, env={"REFBENCH_STORE": str(case_dir.parent / "s.sqlite"),
                                          "HF_HUB_OFFLINE": "1"})
    found = problems(Case(id="x", args=(), fragment=fragment), out, before,
                     snapshot(case_dir))
    assert not found, (found, out.stderr[-1500:], out.traceback)


# --- services that are not what the address should be ----------------------------------------

@pytest.fixture
def service() -> Iterator[Callable[[str], int]]:
    """``service(kind)`` starts a TCP service on 127.0.0.1 and returns its port: ``ssh`` sends
    an SSH banner, ``binary`` bytes that are neither HTTP nor Dask, ``silent`` accepts and says
    nothing, ``close`` closes after reading, ``http`` answers 404 to everything."""
    servers: list[socket.socket] = []
    conns: list[socket.socket] = []

    def start(kind: str) -> int:
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(16)
        servers.append(srv)

        def serve() -> None:
            while True:
                try:
                    conn, _ = srv.accept()
                except OSError:
                    return
                conns.append(conn)
                if kind == "ssh":
                    conn.sendall(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n")
                elif kind == "binary":
                    conn.sendall(bytes(range(256)))
                elif kind == "close":
                    conn.recv(1024)
                    conn.close()
                elif kind == "http":
                    conn.recv(65536)
                    conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
                                 b"Connection: close\r\n\r\n")
                    conn.close()

        threading.Thread(target=serve, daemon=True).start()
        return int(srv.getsockname()[1])

    yield start
    for s in servers + conns:
        s.close()


LOGLIK = ["run", "--model", "llm-loglik", "--data", str(WSC), "--no-store", "--quiet",
          "--out", "r", "--model-arg", "timeout=2", "--model-arg", "retries=1",
          "--model-arg", "backoff=0"]


@pytest.mark.parametrize(("kind", "fragment"), [
    ("ssh", "the service there does not speak HTTP (it answered 'SSH-2.0-OpenSSH_9.2p1 "
            "Debian-2')"),
    ("binary", "the service there does not speak HTTP"),
    ("silent", "no HTTP answer within 2 s (the timeout option)"),
    ("close", "the service there closed the connection without an HTTP answer"),
])
def test_llm_loglik_at_a_service_that_is_not_http(kind: str, fragment: str, tmp_path: Path,
                                                  service: Callable[[str], int]) -> None:
    url = f"http://127.0.0.1:{service(kind)}/v1"
    _promise([*LOGLIK, "--model-arg", f"base_url={url}"], tmp_path / "case",
             f"{url}: {fragment}")


def test_llm_loglik_at_a_port_nothing_listens_on(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    _promise([*LOGLIK, "--model-arg", f"base_url=http://127.0.0.1:{port}/v1"],
             tmp_path / "case", "/completions failed after 2 attempts: [Errno 111] Connection "
             "refused")


@pytest.fixture(scope="module")
def scheduler_without_workers() -> Iterator[str]:
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp://",
                                       host="127.0.0.1", dashboard_address=None)
    try:
        yield str(cluster.scheduler_address)
    finally:
        cluster.close()


def test_llm_loglik_at_a_dask_scheduler_port(tmp_path: Path,
                                             scheduler_without_workers: str) -> None:
    url = "http://" + scheduler_without_workers.removeprefix("tcp://") + "/v1"
    _promise([*LOGLIK, "--model-arg", f"base_url={url}"], tmp_path / "case", url)


DASK = ["run", "--model", "first", "--data", str(WSC), "--no-store", "--quiet", "--out", "r",
        "--engine", "dask", "--scheduler"]


@pytest.mark.parametrize(("kind", "fragment"), [
    ("ssh", "is not a Dask scheduler"),
    ("http", "is not a Dask scheduler"),
    ("silent", "within 5 s"),
    ("close", "cannot reach a dask scheduler"),
])
def test_dask_engine_at_a_port_that_is_no_scheduler(kind: str, fragment: str, tmp_path: Path,
                                                    service: Callable[[str], int]) -> None:
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{service(kind)}"
    _promise([*DASK, address], tmp_path / "case", fragment)


def test_dask_engine_at_a_scheduler_without_workers(tmp_path: Path,
                                                    scheduler_without_workers: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from refbench.core import workers

    monkeypatch.setattr(workers, "WORKERS_TIMEOUT_S", 1)
    _promise([*DASK, scheduler_without_workers], tmp_path / "case",
             f"the dask scheduler at {scheduler_without_workers} has no workers and none "
             "joined within 1 s")


# --- killed half-way: nothing that looks complete ---------------------------------------------

def _killed(prelude: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``refbench ARGS`` in a process that SIGKILLs itself where ``prelude`` says."""
    code = prelude + "\nfrom refbench.cli import main\nmain()\n"
    r = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True,
                       text=True, timeout=600,
                       env=dict(os.environ, HF_HUB_OFFLINE="1",
                                REFBENCH_STORE=str(cwd / "s.sqlite")))
    assert r.returncode == -signal.SIGKILL, r.stderr
    return r


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    r = subprocess.run([sys.executable, "-c", "from refbench.cli import main; main()", *args],
                       cwd=cwd, capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, HF_HUB_OFFLINE="1",
                                REFBENCH_STORE=str(cwd / "s.sqlite")))
    assert r.returncode == 0, r.stderr
    return r


DIE_AFTER_COPY = """
import os, signal
import refbench.export.hf as hf
real = hf._copy_native
def copy_then_die(*a, **k):
    real(*a, **k)
    os.kill(os.getpid(), signal.SIGKILL)
hf._copy_native = copy_then_die
"""

DIE_AFTER_WRITES = """
import os, signal
import refbench.runs.lm_eval.export as lm
real = lm.write_text_atomic
done = []
def write_then_die(path, text):
    real(path, text)
    done.append(path)
    if len(done) == 2:  # a data file and its task YAML
        os.kill(os.getpid(), signal.SIGKILL)
lm.write_text_atomic = write_then_die
"""


@pytest.mark.parametrize("earlier", [False, True])
def test_sigkill_during_export_hf_leaves_no_complete_looking_folder(tmp_path: Path,
                                                                     earlier: bool) -> None:
    out = tmp_path / "hf"
    if earlier:
        _run(["export", "hf", str(TINY), "--out", str(out)], tmp_path)
        card = (out / "README.md").read_bytes()
    _killed(DIE_AFTER_COPY, ["export", "hf", str(TINY), "--out", str(out)], tmp_path)
    partial = list(tmp_path.glob(".hf.*.partial"))
    assert len(partial) == 1 and list(partial[0].rglob("*.jsonl"))
    assert not (partial[0] / "README.md").exists()
    if earlier:  # the earlier export is untouched
        assert (out / "README.md").read_bytes() == card
    else:
        assert not out.exists()
    r = _run(["export", "hf", str(TINY), "--out", str(out)], tmp_path)
    assert "interrupted run" in r.stderr and not list(tmp_path.glob(".hf.*"))
    assert (out / "README.md").is_file()


@pytest.mark.parametrize("earlier", [False, True])
def test_sigkill_during_export_lm_eval_leaves_no_complete_looking_folder(
        tmp_path: Path, earlier: bool) -> None:
    out = tmp_path / "lm"
    if earlier:
        _run(["export", "lm-eval", "--data", str(WSC), "--out", str(out)], tmp_path)
        before = sorted(p.name for p in out.iterdir())
    _killed(DIE_AFTER_WRITES, ["export", "lm-eval", "--data", str(TINY), "--out", str(out)],
            tmp_path)
    partial = list(tmp_path.glob(".lm.*.partial"))
    assert len(partial) == 1 and list(partial[0].glob("*.yaml"))
    if earlier:
        assert sorted(p.name for p in out.iterdir()) == before
    else:
        assert not out.exists()
    r = _run(["export", "lm-eval", "--data", str(TINY), "--out", str(out)], tmp_path)
    assert "interrupted run" in r.stderr and not list(tmp_path.glob(".lm.*"))
    assert (out / "README.md").is_file() and (out / "utils.py").is_file()


def test_an_export_replaces_an_earlier_one_whole(tmp_path: Path) -> None:
    out = tmp_path / "lm"
    _run(["export", "lm-eval", "--data", str(TINY), "--out", str(out)], tmp_path)
    suite_yamls = sorted(p.name for p in out.glob("*.yaml"))
    assert len(suite_yamls) > 2
    (out / "refbench_stale.yaml").write_text("task: refbench_stale\n")
    _run(["export", "lm-eval", "--data", str(WSC), "--out", str(out)], tmp_path)
    assert sorted(p.name for p in out.iterdir()) == [
        "README.md", "refbench_wsc_tiny.jsonl", "refbench_wsc_tiny.yaml", "utils.py"]
    hf = tmp_path / "hf"
    _run(["export", "hf", str(TINY), "--out", str(hf)], tmp_path)
    (hf / "data" / "stale.jsonl").write_text("{}\n")
    _run(["export", "hf", str(WSC), "--out", str(hf)], tmp_path)
    assert sorted(str(p.relative_to(hf)) for p in hf.rglob("*")) == [
        "README.md", "data", "data/wsc_tiny.jsonl"]


DIE_AFTER_METRICS = """
import os, signal
import refbench.runs.record as record
real = record.write_text_atomic
def write_then_die(path, text):
    real(path, text)
    if str(path).endswith("metrics.json"):
        os.kill(os.getpid(), signal.SIGKILL)
record.write_text_atomic = write_then_die
"""

DIE_WHEN_RECORDING = """
import os, signal
import refbench.runs.store as store
def die(self, **kw):
    os.kill(os.getpid(), signal.SIGKILL)
store.Store.add_run = die
"""


def _shards(tmp_path: Path) -> list[str]:
    from refbench.runs.record import RunSettings
    from refbench.runs.runner import run_model

    data = tmp_path / "w.jsonl"
    with data.open("w") as fh:
        for i in range(100):
            fh.write(json.dumps({"qID": f"t-{i}", "sentence": f"Ann {i} thanked Bo because _ "
                                 "helped.", "option1": "Ann", "option2": "Bo",
                                 "answer": str(1 + i % 2)}) + "\n")
    for i in (1, 2):
        run_model(RunSettings("first", shard=(i, 2)), data, tmp_path / f"s{i}", progress=False)
    return [str(tmp_path / "s1"), str(tmp_path / "s2")]


def _store_runs(tmp_path: Path) -> list[dict[str, Any]]:
    r = _run(["results", "ls", "--json"], tmp_path)
    rows: list[dict[str, Any]] = json.loads(r.stdout)
    return rows


def test_merge_killed_after_metrics_json_has_its_store_row(tmp_path: Path) -> None:
    shards = _shards(tmp_path)
    _killed(DIE_AFTER_METRICS, ["results", "merge", *shards, "--out", str(tmp_path / "m")],
            tmp_path)
    assert (tmp_path / "m" / "metrics.json").is_file()  # the folder looks complete ...
    rows = _store_runs(tmp_path)  # ... and it is: the store holds it
    assert [r["out_dir"] for r in rows] == [str(tmp_path / "m")] and rows[0]["n"] == 100


def test_merge_killed_while_recording_leaves_no_complete_looking_folder(
        tmp_path: Path) -> None:
    shards = _shards(tmp_path)
    _killed(DIE_WHEN_RECORDING, ["results", "merge", *shards, "--out", str(tmp_path / "m")],
            tmp_path)
    assert not (tmp_path / "m" / "metrics.json").exists()
    assert _store_runs(tmp_path) == []


def test_a_run_the_store_refuses_keeps_its_metrics_and_one_it_cannot_write_has_no_row(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from refbench.runs import record, runner
    from refbench.runs.store import Store, StoreError

    store = Store(tmp_path / "s.sqlite")

    def locked(**kw: Any) -> int:
        raise StoreError("the results store is locked", path=store.path, kind="locked")

    monkeypatch.setattr(store, "add_run", locked)
    with pytest.raises(RefbenchError, match="record it later with: refbench results add"):
        runner.run_model("first", WSC, tmp_path / "a", store=store, progress=False)
    assert (tmp_path / "a" / "metrics.json").is_file()
    monkeypatch.undo()

    real = record.write_text_atomic

    def full(path: Any, text: str) -> None:
        if str(path).endswith("metrics.json"):
            raise OutputError("cannot write here (no space left on device)", path=path)
        real(path, text)

    monkeypatch.setattr(record, "write_text_atomic", full)
    with pytest.raises(OutputError):
        runner.run_model("first", WSC, tmp_path / "b", store=store, progress=False)
    assert store.runs() == []  # the row recorded first was removed again
    store.close()


# --- a worker pool that can always be stopped --------------------------------------------------

def _stops(action: Callable[[], Any]) -> None:
    """``action`` returns (in a thread, so that a hang fails the test instead of the suite)."""
    done = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            action()
        except BaseException as exc:
            errors.append(exc)
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(120), "the pool never stopped"
    if errors:
        raise errors[0]


def _fail(x: int) -> int:
    raise RefbenchError(f"bad item {x}", path="f.jsonl", line=x)


@pytest.mark.skipif(not LINUX, reason="fork and /proc")
def test_a_pool_whose_idle_worker_was_killed_still_stops() -> None:
    """multiprocessing.Pool.terminate() blocks forever here: the killed worker held the lock of
    the shared task pipe (the interrupted kitmus generate that never exited)."""
    pool = WorkerPool(2)
    time.sleep(0.2)  # both idle, one of them waiting on the task pipe
    for w in pool._workers:
        os.kill(w.process.pid or 0, signal.SIGKILL)
    _stops(pool.terminate)
    assert all(w.process.exitcode is not None for w in pool._workers)


@pytest.mark.skipif(not LINUX, reason="fork and /proc")
def test_a_worker_killed_during_its_task_is_an_error_not_a_wait() -> None:
    pool = WorkerPool(1)
    task = pool.apply_async(time.sleep, (300,))
    time.sleep(0.2)
    os.kill(pool._workers[0].process.pid or 0, signal.SIGKILL)
    with pytest.raises(WorkerDied, match="killed by signal 9"):
        _stops(task.get)
    pool.terminate()


def test_pool_results_in_order_and_errors_as_raised() -> None:
    pool = WorkerPool(2)
    try:
        assert list(pool.imap(abs, [-3, 2, -1, 0, -7])) == [3, 2, 1, 0, 7]
        with pytest.raises(RefbenchError) as info:
            list(pool.imap(_fail, [4]))
        assert info.value.render() == "error E400: f.jsonl:4: bad item 4"
        assert pool.apply_async(max, (1, 5, 2)).get() == 5
    finally:
        pool.close()
    assert all(w.process.exitcode == 0 for w in pool._workers)


class _TwoArguments(Exception):
    """An exception the pipe cannot carry back as it is (its constructor takes two arguments
    and passes one on)."""

    def __init__(self, a: str, b: str) -> None:
        super().__init__(f"{a} and {b}")


def _raise_two(x: int) -> int:
    raise _TwoArguments("first", "second")


@pytest.mark.skipif(not LINUX, reason="fork")
def test_a_worker_error_that_cannot_be_unpickled_keeps_its_message() -> None:
    """Plain pickle cannot rebuild it (a RuntimeError with its type and message comes back);
    where tblib's pickling is installed (Dask's distributed does), it comes back as itself."""
    pool = WorkerPool(1)
    try:
        with pytest.raises(Exception, match="first and second") as info:
            list(pool.imap(_raise_two, [1]))
        assert isinstance(info.value, RuntimeError | _TwoArguments)
        assert "missing 1 required positional argument" not in str(info.value)
        assert pool.apply_async(max, (1, 5)).get() == 5  # the pool goes on
    finally:
        pool.close()


@pytest.mark.skipif(not LINUX, reason="fork and /proc")
def test_a_task_given_to_a_worker_that_died_idle_is_an_error() -> None:
    pool = WorkerPool(1)
    try:
        worker = pool._workers[0]
        os.kill(worker.process.pid or 0, signal.SIGKILL)
        worker.process.join(30)
        with pytest.raises(WorkerDied):
            _stops(lambda: pool.apply_async(max, (1, 5)).get())
    finally:
        _stops(pool.terminate)


INTERRUPT_AS_THE_POOL_IS_BUILT = """
import os, signal
import multiprocessing.process as mpp
real = mpp.BaseProcess.start
started = []
def start(self):
    real(self)
    started.append(self)
    if len(started) == 2:  # Ctrl-C as the last worker starts (pending: blocked while forking)
        os.kill(os.getpid(), signal.SIGINT)
mpp.BaseProcess.start = start
"""


@pytest.mark.skipif(not LINUX, reason="reads /proc")
def test_ctrl_c_while_the_pool_is_built_ends_the_command(tmp_path: Path) -> None:
    code = INTERRUPT_AS_THE_POOL_IS_BUILT + AS_AT_A_TERMINAL.replace("; ", "\n")
    proc = subprocess.Popen([sys.executable, "-c", code, *GENERATE, "--out",
                             str(tmp_path / "gen")], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=dict(os.environ, HF_HUB_OFFLINE="1"))
    try:
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "interrupted: nothing was written" in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())
    assert _wait_for(lambda: not _children(proc.pid), 15)


def test_kitmus_tiny_suite_still_exports(tmp_path: Path, support: Path) -> None:
    """The record check added to the hf export accepts every row of a generated suite."""
    suite = tmp_path / "suite"
    shutil.copytree(support / "suite", suite)
    out = invoke(["export", "hf", str(suite), "--out", str(tmp_path / "hf"), "--json"],
                 cwd=tmp_path, env={})
    assert out.code == 0, out.stderr
    assert json.loads(out.stdout)["configs"]
