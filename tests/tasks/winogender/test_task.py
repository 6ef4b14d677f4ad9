"""Winogender through every layer, by the real command line: ls, run (every choice model and the
release folder whole), evaluate, report and its figure, the task's own commands, bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED, needs_shared

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "winogender"
RELEASE = SHARED / "data" / "winogender"


def test_listed(cli: Any) -> None:
    out = cli("ls", "tasks")
    assert out.returncode == 0 and "winogender" in out.stdout


@pytest.mark.parametrize("model", ["first", "random", "nearest", "embedding", "llm-loglik"])
def test_every_choice_model_runs(cli: Any, tmp_path: Path, model: str) -> None:
    out = cli("run", "--model", model, "--data", str(FIXTURE / "all_sentences.tsv"),
              "--out", str(tmp_path / "run"), "--no-store", "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    m = json.loads(out.stdout)
    assert m["task"] == "winogender" and m["n"] == 24
    assert set(m["winogender"]["by_gender"]) == {"male", "female", "neutral"}
    assert m["winogender"]["flip"]["n_groups"] == 8
    if model == "first":
        assert m["accuracy"] == 0.5 and m["flip_rate"] == 0.0


def test_folder_run_evaluate_report_and_figure(cli: Any, tmp_path: Path) -> None:
    run = tmp_path / "wg-first"
    out = cli("run", "--model", "first", "--data", str(FIXTURE), "--out", str(run),
              "--no-store", "--quiet")
    assert out.returncode == 0, out.stderr
    assert "Flip rate" in out.stdout and "Gotcha" in out.stdout
    metrics = run / "all_sentences" / "metrics.json"
    assert json.loads(metrics.read_text())["accuracy"] == 0.5
    ev = cli("evaluate", "--task", "winogender", "--gold", str(FIXTURE), "--pred",
             str(run / "all_sentences"), "--json")
    assert ev.returncode == 0, ev.stderr
    assert json.loads(ev.stdout)["winogender"]["accuracy"] == 0.5
    # the run's --out folder itself, against the sentences file or the release folder
    for gold in (FIXTURE / "all_sentences.tsv", FIXTURE):
        ev = cli("evaluate", "--task", "winogender", "--gold", str(gold), "--pred", str(run),
                 "--json")
        assert ev.returncode == 0, ev.stderr
        assert json.loads(ev.stdout)["winogender"]["accuracy"] == 0.5
    rep = cli("report", str(metrics), "--plot", str(tmp_path / "wg.png"))
    assert rep.returncode == 0, rep.stderr
    assert "Winogender" in rep.stdout and "Flip rate" in rep.stdout
    assert (tmp_path / "wg.png").read_bytes()[:4] == b"\x89PNG"
    plot = cli("winogender", "plot", str(run), "--out", str(tmp_path / "wg2.png"))
    assert plot.returncode == 0, plot.stderr
    assert (tmp_path / "wg2.png").is_file()


def test_check_command(cli: Any) -> None:
    out = cli("winogender", "check", str(FIXTURE))
    # the fixture is a slice of the release, not the paper's: a problem (exit 1), said
    assert out.returncode == 1, out.stderr
    assert "24 sentences read" in out.stdout
    assert "disagreeing with their template or id: 0" in out.stdout
    assert out.stdout.strip().splitlines()[-1].startswith("3 problem(s): sentences: 24, "
                                                          "published 720")


def test_bad_sentence_id_is_one_error_line(cli: Any, tmp_path: Path) -> None:
    for f in FIXTURE.iterdir():
        shutil.copy(f, tmp_path / f.name)
    path = tmp_path / "all_sentences.tsv"
    path.write_text(path.read_text().replace("technician.customer.1.male.txt",
                                             "technician.customer.2.male.txt", 1))
    out = cli("run", "--model", "first", "--data", str(path), "--out", str(tmp_path / "r"),
              "--no-store", "--quiet")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error E400: ")
    assert "all_sentences.tsv:2" in lines[0] and "Traceback" not in out.stderr
    assert not (tmp_path / "r" / "metrics.json").exists()


@needs_shared(RELEASE)
def test_release_check_and_first_baseline(cli: Any, tmp_path: Path) -> None:
    out = cli("winogender", "check", str(RELEASE), "--json")
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["n_disagreements"] == 0 and all(p["ok"] for p in r["published"].values())
    assert r["gotcha"] == {"n": 120, "male": 62, "female": 58}
    run = cli("run", "--model", "first", "--data", str(RELEASE), "--out", str(tmp_path / "r"),
              "--no-store", "--quiet", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["accuracy"] == 0.5
