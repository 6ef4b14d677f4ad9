"""``refbench.public.store``, the results store from Python, and ``refbench results ls/show``
printing what it returns: each record's seal is checked; ``ls`` lists a record its seal
refuses (saying so), ``show`` refuses it in one line, as ``report`` does."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from refbench.cli import app
from refbench.core.commands import run_guarded
from refbench.core.seal import NOT_VERIFIED, REFUSED, VERIFIED, RecordRefused
from refbench.public.store import list_runs, show_run, tag_runs
from tests.conftest import ROOT

SUB2 = ROOT / "tests" / "golden" / "kitmus-tiny" / "background-pretrain" / "subtask_2_ents" / (
    "test.jsonl")


def _cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = run_guarded(app, [str(a) for a in args])
    got = capsys.readouterr()
    return code, got.out, got.err


def _edit(store: Path, run_id: int, change: dict[str, object], drop: str = "") -> None:
    """Change run ``run_id``'s recorded metrics behind the store's back."""
    with sqlite3.connect(store) as db:
        (text,) = db.execute("SELECT metrics FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        metrics = {k: v for k, v in json.loads(text).items() if k != drop}
        db.execute("UPDATE runs SET metrics = ? WHERE run_id = ?",
                   (json.dumps({**metrics, **change}), run_id))


@pytest.fixture
def store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """Three runs of ``first`` on two KITMUS instances (accuracy 0.5 each): run 1 as recorded,
    run 2 with its accuracy edited to 1.0, run 3 with its seal taken off."""
    path = tmp_path / "s.sqlite"
    for k in (1, 2, 3):
        code, _, err = _cli(capsys, "run", "--model", "first", "--data", SUB2, "--out",
                            tmp_path / f"r{k}", "--store", path, "--quiet")
        assert code == 0, err
    _edit(path, 2, {"accuracy": 1.0})
    _edit(path, 3, {}, drop="seal")
    return path


def test_list_runs_gives_each_records_verdict(store: Path) -> None:
    notes: list[str] = []
    listing = list_runs(store=store, note=notes.append)
    assert [r["run_id"] for r in listing.rows] == [3, 2, 1]  # newest first
    assert notes == [f"store: {store}"] or notes[0].startswith(f"store: {store}")
    states = {rid: v.state for rid, v in listing.verdicts.items()}
    assert states == {1: VERIFIED, 2: REFUSED, 3: NOT_VERIFIED}
    assert listing.verdicts[3].reason == "written before seals"


def test_show_run_refuses_an_edited_record(store: Path) -> None:
    row, verdict = show_run(1, store=store)
    assert row["run_id"] == 1 and verdict.state == VERIFIED
    assert row["metrics"]["accuracy"] == 0.5  # first on two instances: one right
    with pytest.raises(RecordRefused, match="run 2"):
        show_run(2, store=store)
    assert show_run(3, store=store)[1].text() == "not verified: written before seals"


def test_tag_runs_returns_each_runs_tags(store: Path) -> None:
    assert tag_runs([1, 3], ["paper", "a"], store=store) == [(1, ["a", "paper"]),
                                                             (3, ["a", "paper"])]
    assert tag_runs([1], ["a"], remove=True, store=store) == [(1, ["paper"])]


def test_results_ls_lists_an_edited_record_and_says_so(
        store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(capsys, "results", "ls", "--store", store)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("3 runs in ")
    assert lines[-2] == "run 3: not verified: written before seals"  # in the table's order
    assert lines[-1].startswith("run 2: refused: it was changed after the run")
    code, out, err = _cli(capsys, "results", "ls", "--store", store, "--json")
    assert code == 0, err
    seals = {r["run_id"]: r.get("seal") for r in json.loads(out)}
    assert seals[1] is None and seals[3] == "not verified: written before seals"
    assert seals[2] is not None and seals[2].startswith("refused: ")


def test_results_show_refuses_an_edited_record_in_one_line(
        store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(capsys, "results", "show", "2", "--store", store)
    assert code == 2 and out == ""
    store_line, error = err.strip().splitlines()
    assert store_line.startswith(f"store: {store}")
    assert "run 2" in error and "this record is refused" in error
    code, out, err = _cli(capsys, "results", "show", "3", "--store", store, "--json")
    assert code == 0 and json.loads(out)["run_id"] == 3
    assert "not verified: written before seals" in err
