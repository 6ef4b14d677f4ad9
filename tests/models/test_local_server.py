"""The one start-and-poll helper of the local servers (vLLM, llama-cpp-python's), with plain
Python processes standing in for them: it yields once ``/v1/models`` answers, and an early
exit or a server that never answers is one error naming the log, the process stopped."""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.models.local_server import local_server


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_yields_once_the_server_answers_and_stops_it(tmp_path: Path) -> None:
    (tmp_path / "www" / "v1").mkdir(parents=True)
    (tmp_path / "www" / "v1" / "models").write_text(json.dumps({"data": []}), encoding="utf-8")
    pid_file = tmp_path / "pid"
    script = ("import os, sys, http.server, functools; "
              f"open({str(pid_file)!r}, 'w').write(str(os.getpid())); "
              "h = functools.partial(http.server.SimpleHTTPRequestHandler, "
              f"directory={str(tmp_path / 'www')!r}); "
              "http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), h)"
              ".serve_forever()")
    with local_server("stand-in", lambda port: [sys.executable, "-c", script, str(port)],
                      timeout=120, log=tmp_path / "log", poll_every=0.1) as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        with urllib.request.urlopen(f"{url}/models", timeout=10) as r:
            assert json.loads(r.read()) == {"data": []}
        pid = int(pid_file.read_text(encoding="utf-8"))
    assert _gone(pid)


def test_an_exit_while_starting_is_one_error_naming_the_log(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    argv = [sys.executable, "-c", "print('no weights'); raise SystemExit(3)"]
    with (pytest.raises(RefbenchError, match="stand-in exited with code 3 while starting") as err,
          local_server("stand-in", lambda port: argv, timeout=120, log=log, poll_every=0.1)):
        pytest.fail("yielded for a server that exited")
    assert str(log) in err.value.render()
    assert "no weights" in log.read_text(encoding="utf-8")


def test_a_server_that_never_answers_times_out_and_is_stopped(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = (f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); "
              "time.sleep(600)")
    with (pytest.raises(RefbenchError, match=r"did not answer within 0\.3 s"),
          local_server("stand-in", lambda port: [sys.executable, "-c", script],
                       timeout=0.3, poll_every=0.1, grace=10)):
        pytest.fail("yielded for a server that never answered")
    if pid_file.exists():  # it may not have got as far as writing it
        assert _gone(int(pid_file.read_text(encoding="utf-8")))


def test_a_server_that_cannot_start_names_the_program(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-python"
    with (pytest.raises(RefbenchError, match="cannot start stand-in") as err,
          local_server("stand-in", lambda port: [str(missing)], timeout=5)):
        pytest.fail("yielded for a server that did not start")
    assert str(missing) in err.value.render()
