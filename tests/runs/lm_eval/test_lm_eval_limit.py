"""``results import-lm-eval`` of a run made with lm-eval's ``--limit``: samples for the first n
documents become a partial run (``limit`` and ``data_coverage`` n of N in its metrics), shown
as partial where the run is printed (the import line, the run text, ``results ls``,
``report``); a gap that --limit cannot make stays an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refbench.cli import app
from refbench.core.commands import run_guarded
from refbench.runs.lm_eval.export import export_lm_eval
from refbench.tasks.result_text import about
from tests.runs.lm_eval.lm_eval_fake import fake_run

SENTENCES = [
    ("The trophy doesn't fit into the brown suitcase because the _ is too large.",
     "trophy", "suitcase", "1"),
    ("The trophy doesn't fit into the brown suitcase because the _ is too small.",
     "trophy", "suitcase", "2"),
    ("Joan made sure to thank Susan for all the help _ had received.", "Joan", "Susan", "1"),
    ("Joan made sure to thank Susan for all the help _ had given.", "Joan", "Susan", "2"),
    ("Paul tried to call George on the phone, but _ wasn't successful.", "Paul", "George", "1"),
    ("Paul tried to call George on the phone, but _ wasn't available.", "Paul", "George", "2"),
]


@pytest.fixture
def limited(tmp_path: Path) -> tuple[Path, Path]:
    """A 6-instance WSC-style file and lm-eval's samples of its first 4 (``--limit 4``)."""
    data = tmp_path / "wsc-six.jsonl"
    data.write_text("".join(json.dumps({"qID": f"six-{k}", "sentence": s, "option1": a,
                                        "option2": b, "answer": g}) + "\n"
                            for k, (s, a, b, g) in enumerate(SENTENCES)))
    export_lm_eval(data, tmp_path / "tasks")
    samples = fake_run(tmp_path / "tasks", tmp_path / "lm")[0]
    samples.write_text("".join(samples.read_text().splitlines(keepends=True)[:4]))
    results = next((tmp_path / "lm").glob("results_*.json"))
    doc = json.loads(results.read_text())
    doc["config"]["limit"] = 4
    results.write_text(json.dumps(doc))
    return data, samples


def cli(*args: str) -> int:
    return run_guarded(app, list(args))


def test_a_limit_run_is_imported_as_partial(limited: tuple[Path, Path], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    data, samples = limited
    store = tmp_path / "store.sqlite"
    assert cli("results", "import-lm-eval", str(samples), "--data", str(data), "--out",
               str(tmp_path / "run"), "--store", str(store)) == 0
    out = capsys.readouterr().out
    assert "4 of 6 instances (partial: lm-eval --limit)" in out
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["n"] == 4 and metrics["limit"] == 4
    assert metrics["data_coverage"] == {"n": 4, "of": 6, "by": "lm-eval --limit"}
    preds = (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()
    assert [json.loads(p)["id"] for p in preds] == ["six-0", "six-1", "six-2", "six-3"]
    assert about(metrics).endswith("(partial: 4 of 6 instances, lm-eval --limit)")

    assert cli("results", "ls", "--store", str(store)) == 0
    listing = capsys.readouterr().out
    assert " 4 of 6 " in listing
    assert cli("report", "--from-store", "--store", str(store)) == 2  # nothing else to report
    assert "left out run 1 (only the first 4 of 6 instances: lm-eval --limit)" in (
        capsys.readouterr().err)
    assert cli("report", str(tmp_path / "run")) == 0
    assert "covers 4 of 6 instances of its data (lm-eval --limit)" in capsys.readouterr().err


def test_a_gap_that_limit_cannot_make_is_an_error(limited: tuple[Path, Path], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    data, samples = limited
    lines = samples.read_text().splitlines(keepends=True)
    samples.write_text(lines[0] + lines[1] + lines[3])  # doc 2 missing, doc 3 present
    assert cli("results", "import-lm-eval", str(samples), "--data", str(data), "--out",
               str(tmp_path / "run"), "--no-store") == 2
    err = capsys.readouterr().err
    assert "six-2" in err and "no --limit run" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "run").exists()
