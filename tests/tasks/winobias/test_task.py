"""WinoBias through every layer, by the real command line: ls, run (every choice model; the
release folder whole prints the paper's table), evaluate (a file, a folder run), report, the
task's own commands, bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED, needs_shared

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "winobias"
RELEASE = SHARED / "data" / "winobias"


def test_listed(cli: Any) -> None:
    out = cli("ls", "tasks")
    assert out.returncode == 0 and "winobias" in out.stdout


@pytest.mark.parametrize("model", ["first", "random", "nearest", "embedding", "llm-loglik"])
def test_every_choice_model_runs(cli: Any, tmp_path: Path, model: str) -> None:
    out = cli("run", "--model", model, "--data", str(FIXTURE / "anti_stereotyped_type2.txt.test"),
              "--out", str(tmp_path / "run"), "--no-store", "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    m = json.loads(out.stdout)
    assert m["task"] == "winobias" and m["n"] == 4
    assert set(m["winobias"]["rows"]["type2"]) >= {"pro", "anti", "avg", "diff"}
    assert 0.0 <= m["conll_f1"] <= 1.0
    if model == "first":
        assert m["accuracy"] == 0.0  # the antecedent is the second occupation in type 2


def test_folder_run_prints_the_table_and_evaluates_again(cli: Any, tmp_path: Path) -> None:
    run = tmp_path / "wb-first"
    out = cli("run", "--model", "first", "--data", str(FIXTURE), "--out", str(run),
              "--no-store", "--quiet")
    assert out.returncode == 0, out.stderr
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in out.stdout.splitlines()
            if line.startswith("| first")]
    assert rows[0][2:7] == ["type1", "0.500", "0.500", "0.500", "0.000"]  # fractions
    assert rows[1][2:7] == ["type2", "0.000", "0.000", "0.000", "0.000"]
    assert "| System | Split | Type | Pro | Anti | Avg | Diff |" in out.stdout
    result = json.loads((run / "results.json").read_text())
    assert result["type1_pro"] == 0.5 and result["mode"] == "release"
    ev = cli("evaluate", "--task", "winobias", "--gold", str(FIXTURE), "--pred", str(run),
             "--json")
    assert ev.returncode == 0, ev.stderr
    again = json.loads(ev.stdout)
    assert again["winobias"]["rows"] == result["winobias"]["rows"]
    rep = cli("report", str(run / "results.json"))
    assert rep.returncode == 0, rep.stderr
    assert "WinoBias" in rep.stdout and "Diff" in rep.stdout


def test_check_and_score_conll_commands(cli: Any) -> None:
    out = cli("winobias", "check", str(FIXTURE))
    # the fixture's files are slices of the release's (396 sentences each): exit 1, said
    assert out.returncode == 1, out.stderr
    assert "notified the [the chief]" in out.stdout
    assert "problems: files not of 396 sentences each" in out.stdout
    conll = FIXTURE / "conll_format" / "test_type1_pro_stereotype.v4_auto_conll"
    scored = cli("winobias", "score-conll", "--gold", str(conll), "--pred", str(conll), "--json")
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout)["conll_f1"] == 1.0


def test_bad_line_is_one_error_line(cli: Any, tmp_path: Path) -> None:
    data = tmp_path / "wb"
    shutil.copytree(FIXTURE, data)
    path = data / "pro_stereotyped_type1.txt.test"
    path.write_text(path.read_text().replace("[The janitor]", "The janitor", 1))
    out = cli("run", "--model", "first", "--data", str(path), "--out", str(tmp_path / "r"),
              "--no-store", "--quiet")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error E400: ")
    assert "pro_stereotyped_type1.txt.test:2" in lines[0]


@needs_shared(RELEASE)
def test_release_folder_run(cli: Any, tmp_path: Path) -> None:
    out = cli("run", "--model", "first", "--data", str(RELEASE), "--out", str(tmp_path / "r"),
              "--no-store", "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert (r["type1_pro"], r["type1_anti"]) == (0.5, 0.5)
    assert (r["type2_pro"], r["type2_anti"]) == (2 / 396, 2 / 396)
    assert len(r["coref_by_file"]) == 4
    check = cli("winobias", "check", str(RELEASE), "--json")
    assert check.returncode == 0 and json.loads(check.stdout)["n_oddities"] == 29
