"""The test run's own machinery (tests/conftest.py): under ``pytest -n 2 --dist loadgroup``
(``make test``) the tests of one group run on one worker, so a session server such as vLLM
starts once per test run, and the run's summary counts the starts.

pytest 9.2 keeps node ids structured, and pytest-xdist 3.8 still writes the old string id to
name a test's group: the groups were silently spread over both workers (two vLLM starts, two
browsers per browser file) until the conftest set the ids itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytest.importorskip("xdist", reason="pytest-xdist is not installed")

CONFTEST = """
from tests.conftest import (counted_start, pytest_collection_modifyitems,  # noqa: F401
                            pytest_sessionfinish, pytest_terminal_summary,
                            pytest_testnodedown)
import pytest

@pytest.fixture(scope="session")
def vllm_url():
    with counted_start("vLLM"):
        pass
    yield "http://127.0.0.1:1/v1"
"""
TESTS = """
import os
import pytest

@pytest.mark.parametrize("n", range(6))
def test_server(vllm_url, n):
    print("ran on", os.environ["PYTEST_XDIST_WORKER"])

@pytest.mark.parametrize("n", range(6))
def test_other(n):
    pass
"""


def test_a_fixture_group_runs_on_one_worker_and_starts_once(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_group.py").write_text(TESTS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")]))
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-rA",
         "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, env=env, check=False, timeout=300)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    workers = {line.split()[0] for line in out.splitlines()
               if "PASSED" in line and "test_server" in line and line.startswith("[gw")}
    assert len(workers) == 1, out  # one group: one worker
    assert out.count("test_server[") >= 6 and "@vllm" in out, out
    assert "vLLM started 1 time(s) in this test run" in out, out
