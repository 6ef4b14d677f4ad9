"""TNE results go through the runner's writer (issue 38): ``tne baseline`` writes an ordinary
run folder (metrics.json is the typed Result, with data and system identity and coverage),
records it in the store and prints the store line as ``refbench run`` does; ``evaluate`` and
``report`` of the folder print the figure the baseline printed; ``results ls`` lists it."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from refbench.cli import app
from refbench.core.commands import run_guarded
from refbench.core.result import Result

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "tests" / "fixtures" / "tne" / "docs.jsonl"
REAL = ROOT.parent / "shared" / "data" / "tne" / "test.jsonl.gz"


def cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = run_guarded(app, [str(a) for a in args])
    got = capsys.readouterr()
    return code, got.out, got.err


def ok(capsys: pytest.CaptureFixture[str], *args: str | Path) -> str:
    code, out, err = cli(capsys, *args)
    assert code == 0, err
    return out


def printed_prf(text: str) -> list[str]:
    """The labeled P / R / F1 a command printed, in percent as printed."""
    found = re.search(r"(\d+\.\d) / +(\d+\.\d) / +(\d+\.\d)", text)
    assert found is not None, text
    return list(found.groups())


def baseline_run(capsys: pytest.CaptureFixture[str], data: Path, out: Path, store: Path,
                 name: str = "surface") -> str:
    return ok(capsys, "tne", "baseline", name, "--data", data, "--out", out,
              "--store", store)


def test_tne_baseline_writes_a_recorded_run_folder(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    run, store = tmp_path / "runs" / "surface", tmp_path / "results.sqlite"
    printed = baseline_run(capsys, DOCS, run, store)
    assert sorted(p.name for p in run.iterdir()) == ["metrics.json", "predictions.jsonl"]
    assert f"predictions: {run / 'predictions.jsonl'}; run 1 in {store}" in printed
    result = Result.read(run)
    assert result.task == "tne" and not result.is_partial
    assert result.system.model == "tne-baseline:surface" and result.system.fingerprint
    assert result.data.sha256 == hashlib.sha256(DOCS.read_bytes()).hexdigest()
    assert result.coverage.n == result.coverage.of == 2
    assert f"{100 * (result.value('labeled_f1') or 0):.1f}" == printed_prf(printed)[2]
    listed = ok(capsys, "results", "ls", "--store", store, "--json")
    rows = json.loads(listed)
    rows = rows if isinstance(rows, list) else rows.get("runs", rows)
    assert [(r["task"], r["system"], r["n"]) for r in rows] == [("tne", "tne-baseline:surface",
                                                                 2)]


def test_evaluate_and_report_of_the_run_print_the_baselines_figure(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "se"
    printed = printed_prf(baseline_run(capsys, DOCS, run, tmp_path / "st.sqlite",
                                       "surface-expand"))
    evaluated = ok(capsys, "evaluate", "--task", "tne", "--gold", DOCS, "--pred", run)
    assert evaluated.startswith("tne-baseline:surface-expand on ")
    assert printed_prf(evaluated) == printed
    as_json = json.loads(ok(capsys, "evaluate", "--task", "tne", "--gold", DOCS, "--pred", run,
                            "--json"))
    metrics = json.loads((run / "metrics.json").read_text())
    for key in ("labeled_precision", "labeled_recall", "labeled_f1", "unlabeled_f1"):
        assert as_json[key] == metrics[key]
    report = json.loads(ok(capsys, "report", run, "--json"))
    rows = report if isinstance(report, list) else report.get("results", [report])
    assert any(abs(r["figures"]["labeled_f1"] - metrics["labeled_f1"]) < 1e-12
               for r in rows if isinstance(r, dict) and "figures" in r), report


def test_baseline_all_is_one_run_folder_per_baseline(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "tne", "baseline", "all", "--data", DOCS, "--out", tmp_path / "b",
             "--store", tmp_path / "st.sqlite", "--leaderboard")
    folders = sorted(p.name for p in (tmp_path / "b").iterdir())
    assert len(folders) == 9 and "combined-coref" in folders
    assert (tmp_path / "b" / "surface" / "leaderboard.jsonl").is_file()  # the export
    assert out.count("; run ") == 9
    fps = {Result.read(tmp_path / "b" / f).system.key for f in folders}
    assert len(fps) == 9  # nine systems, never one


@pytest.mark.skipif(not REAL.is_file(), reason="../shared/data/tne is absent")
def test_real_tne_test_set_evaluate_equals_the_baseline(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The labelled test release (500 documents): the figure ``tne baseline`` prints is the one
    ``evaluate`` and the run's metrics.json give."""
    run = tmp_path / "adj"
    printed = printed_prf(baseline_run(capsys, REAL, run, tmp_path / "st.sqlite",
                                       "adj-backward"))
    evaluated = ok(capsys, "evaluate", "--task", "tne", "--gold", REAL, "--pred", run)
    assert printed_prf(evaluated) == printed
    result = Result.read(run)
    assert result.coverage.n == 500 and result.data.split == "test"
    assert f"{100 * (result.value('labeled_f1') or 0):.1f}" == printed[2]
