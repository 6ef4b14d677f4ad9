"""``run --limit N`` on a folder: the first N instances of each of its files, or, where the
folder's table needs the task's own scorer over whole files (a KITMUS suite), a usage error
that says what to run instead; never silently the whole folder."""

from __future__ import annotations

import json
from pathlib import Path

from scripts.regen_golden import GOLDEN

from tests.conftest import run_cli

WINOBIAS = Path(__file__).resolve().parents[1] / "fixtures" / "winobias"


def test_limit_takes_the_first_instances_of_each_file(tmp_path: Path) -> None:
    whole = run_cli("run", "--model", "first", "--data", str(WINOBIAS), "--out",
                    str(tmp_path / "all"), "--no-store", "--json")
    part = run_cli("run", "--model", "first", "--data", str(WINOBIAS), "--limit", "1",
                   "--out", str(tmp_path / "one"), "--no-store", "--json")
    assert whole.returncode == 0 and part.returncode == 0, whole.stderr + part.stderr
    files = [json.loads(p.read_text()) for p in sorted((tmp_path / "one").rglob("metrics.json"))]
    assert files and all(m["n"] == 1 and m["limit"] == 1 for m in files)
    assert json.loads(part.stdout)["n"] == len(files) < json.loads(whole.stdout)["n"]


def test_limit_on_a_kitmus_suite_is_refused_with_what_to_run(tmp_path: Path) -> None:
    r = run_cli("run", "--model", "first", "--data", str(GOLDEN), "--limit", "3", "--out",
                str(tmp_path / "k"), "--no-store")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "--limit on a KITMUS folder" in r.stderr and "subtask_2_ents/test.jsonl" in r.stderr
    assert not (tmp_path / "k").exists()
