"""Start a local OpenAI-compatible server and wait until it answers: the one start-and-poll loop
of the servers refbench starts for tests and benchmarks (vLLM in its own virtualenv,
llama-cpp-python's server).

Every wait is bounded: the server has ``timeout`` seconds to answer ``GET /v1/models`` (each
probe waits at most ``probe_timeout``), and stopping it sends SIGTERM to its process group (it
runs in a session of its own, so the engine processes it starts go too), then SIGKILL after
``grace`` seconds. A server that cannot start, exits while starting or does not answer in time
is one :class:`~refbench.core.errors.RefbenchError` naming its log; it is stopped on every way
out, the caller's errors and Ctrl-C included.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from refbench.core.errors import RefbenchError


def free_port() -> int:
    """A port free on 127.0.0.1 now (the server binds it next)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stop(proc: subprocess.Popen[bytes], *, grace: float = 30) -> None:
    """Stop a server started by :func:`local_server` and the processes it started (its own
    process group): SIGTERM, then SIGKILL if it has not exited after ``grace`` seconds."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextlib.contextmanager
def local_server(name: str, command: Callable[[int], Sequence[str]], *, timeout: float,
                 log: Path | None = None, env: Mapping[str, str] | None = None,
                 poll_every: float = 1.0, probe_timeout: float = 5.0, grace: float = 30
                 ) -> Iterator[str]:
    """Run ``command(port)`` (a server for 127.0.0.1:port) with its output in ``log``; yield
    its ``/v1`` base URL once ``GET /v1/models`` answers, and stop it on exit. ``name`` is what
    the errors call it (see the module docstring for the bounds)."""
    port = free_port()
    argv = list(command(port))
    sink = log.open("wb") if log is not None else subprocess.DEVNULL
    try:
        proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT,
                                env=None if env is None else dict(env),
                                start_new_session=True)
    except OSError as exc:
        if not isinstance(sink, int):
            sink.close()
        raise RefbenchError(f"cannot start {name} ({exc.strerror or exc})",
                            path=argv[0]) from None
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RefbenchError(f"{name} exited with code {proc.returncode} while starting"
                                    + ("" if log else " (give a log to see why)"), path=log)
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=probe_timeout):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RefbenchError(f"{name} did not answer within {timeout:g} s",
                                        path=log) from None
                time.sleep(poll_every)
        yield url
    finally:
        stop(proc, grace=grace)
        if not isinstance(sink, int):
            sink.close()
