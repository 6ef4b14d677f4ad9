"""Issue 50, point 7: ``refbench serve`` stopped while it indexes. Ctrl-C is one line and exit
130 with no traceback (werkzeug's loop used to swallow it and exit 0, and the reader processes
printed their own tracebacks), and leaves no temporary index; what a SIGKILL leaves is removed
at the next start, while a build still running is left alone."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

LINUX = sys.platform.startswith("linux")
# The command as a terminal starts it (see tests/robustness/test_faults.py: a process that
# inherits an ignored SIGINT keeps ignoring it).
AS_AT_A_TERMINAL = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                    "from refbench.cli import main; main()")
HEADER = ("ID\tText\tPronoun\tPronoun-offset\tA\tA-offset\tA-coref\tB\tB-offset\tB-coref\t"
          "URL\n")
FILLER = " ".join(f"word{k}" for k in range(60))


def _gap_files(folder: Path, files: int = 10, rows: int = 1500) -> None:
    """GAP files large enough that indexing them takes a few seconds (each file its own
    dataset, so the indexes are built one after the other)."""
    folder.mkdir()
    for f in range(files):
        lines = [HEADER]
        for k in range(rows):
            text = f"Mira Holt phoned Dana Reyes because she needed keys {f}-{k}. {FILLER}"
            lines.append(f"d{f}-{k}\t{text}\tshe\t36\tMira Holt\t0\tTRUE\tDana Reyes\t17\t"
                         f"FALSE\thttp://example.org/{k}\n")
        (folder / f"part{f}.tsv").write_text("".join(lines))


def _start(data: Path, index: Path, tmp: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, HF_HUB_OFFLINE="1", REFBENCH_CACHE_DIR=str(tmp / "cache"))
    return subprocess.Popen([sys.executable, "-c", AS_AT_A_TERMINAL, "serve", str(data),
                             "--index-dir", str(index), "--store", str(tmp / "s.sqlite"),
                             "--port", "0"], cwd=tmp, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)


def _wait_for(condition: Any, seconds: float = 120.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return False


def _indexing(index: Path) -> bool:
    """One index finished (the server is answering) and the next one being built."""
    return bool(list(index.glob("*.sqlite"))) and bool(list(index.glob(".*.tmp")))


def _whole(index: Path) -> None:
    from refbench.web.index_health import incomplete

    for path in index.glob("*.sqlite"):
        db = sqlite3.connect(path)
        try:
            assert incomplete(db) is None, path
        finally:
            db.close()


@pytest.fixture()
def serving(tmp_path: Path) -> Any:
    data, index = tmp_path / "data", tmp_path / "index"
    _gap_files(data)
    proc = _start(data, index, tmp_path)
    try:
        if not _wait_for(lambda: _indexing(index)):
            proc.kill()
            pytest.fail(f"serve never indexed: {proc.communicate(timeout=30)[1][-2000:]}")
        yield proc, index, data
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


@pytest.mark.skipif(not LINUX, reason="process groups and signals as on Linux")
def test_ctrl_c_while_indexing_is_one_line_exit_130_and_keeps_nothing_half_written(
        serving: Any) -> None:
    proc, index, _ = serving
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("interrupted: the server stopped"), err
    assert not list(index.glob(".*")), "a temporary index was left"
    _whole(index)


@pytest.mark.skipif(not LINUX, reason="process groups and signals as on Linux")
def test_what_a_sigkill_leaves_is_removed_at_the_next_start(
        serving: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import werkzeug.serving

    from refbench.web.serve import serve_app

    proc, index, data = serving
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    stale = list(index.glob(".*.tmp"))
    assert len(stale) == 1  # a killed process cannot clean up
    # a build in progress in this process (a live id) is not touched
    live = index / f".gap-x.sqlite.{os.getpid()}.1.tmp"
    live.write_text("")
    serving_with: list[list[Path]] = []
    monkeypatch.setattr(werkzeug.serving, "run_simple",
                        lambda *a, **kw: serving_with.append(list(index.glob(".*.tmp"))))
    serve_app([data / "part0.tsv"], run_dirs=[], store=tmp_path / "s.sqlite", index_dir=index,
              host="127.0.0.1", port=8123, warm=False)
    err = capsys.readouterr().err
    assert f"removed {stale[0]} (left by an indexing that was stopped)" in err
    assert serving_with == [[live]]
    # when the server stops, a build of its own that did not finish is not kept either
    assert not list(index.glob(".*.tmp"))
    _whole(index)
