"""A real ``refbench study serve`` process on 127.0.0.1 and an HTTP annotator that talks to it
(used by the load and durability tests, the browser tests and the load benchmark)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

_SERVING = re.compile(r"^serving .* at (http://127\.0\.0\.1:\d+) ")
_LINK = re.compile(r"^\s+(\S+)\s+(http://\S+)$")


class Server:
    """``refbench study serve STUDY --port 0`` in a child process; links parsed from its
    output."""

    def __init__(self, study: Path, *, timeout: float = 60.0) -> None:
        env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from refbench.cli import main; main()", "study", "serve",
             str(study), "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        self.base = ""
        self.links: dict[str, str] = {}
        deadline = time.monotonic() + timeout
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"server exited with {self.proc.wait()}")
            m = _SERVING.match(line)
            if m:
                self.base = m.group(1)
                continue
            m = _LINK.match(line)
            if m and self.base:
                self.links[m.group(1)] = m.group(2)
                if m.group(1) == "admin":
                    # Keep reading what the server prints (waitress warns when its queue is
                    # deep): a full pipe would block the server's next log line, and with it
                    # every thread that logs.
                    self.output: list[str] = []
                    threading.Thread(target=self._drain, daemon=True).start()
                    return
        self.stop()
        raise RuntimeError("server did not print its links in time")

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when the machine or the process dies."""
        self.proc.kill()
        self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def post_answer(link: str, pos: int, fields: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """POST to the JSON save endpoint; link is the annotator's home URL (ends with '/')."""
    req = urllib.request.Request(f"{link}{pos}/answer", method="POST",
                                 data=json.dumps({"fields": fields}).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")
