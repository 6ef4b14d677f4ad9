"""Issue 50, point 9: small defects that each misled a first user."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from refbench.core.errors import UsageError
from tests.conftest import ROOT, SHARED, needs_shared

DATA = SHARED / "data"
TNE = ROOT / "tests" / "fixtures" / "tne"


def _cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    from refbench.cli import app
    from refbench.core.commands import run_guarded

    code = run_guarded(app, [str(a) for a in args])
    got = capsys.readouterr()
    return code, got.out, got.err


@needs_shared(DATA / "altentities")
def test_altentities_alone_names_its_splits(monkeypatch: pytest.MonkeyPatch) -> None:
    from refbench.releases.cache import data_reference

    with pytest.raises(UsageError, match=r"name one of its splits .*altentities:books-test"):
        data_reference("altentities", DATA)
    assert data_reference("altentities:books-test", DATA).name == "test.json.gz"
    assert data_reference("winobias", DATA).is_dir()  # a release read whole stays a folder


def test_a_tne_file_given_to_run_says_it_is_tne(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(capsys, "run", "--model", "random", "--data", TNE / "docs.jsonl",
                        "--out", tmp_path / "r", "--no-store")
    assert code == 2, err
    assert "a tne file" in err and "refbench tne --help" in err
    assert len(err.strip().splitlines()[-1:]) == 1


@pytest.mark.parametrize(("name", "system"), [
    ("runs/x/test.predictions.jsonl.gz", "x"), ("runs/x/predictions.jsonl", "x"),
    ("runs/x/dev.jsonl", "x"), ("gpt4.jsonl", "gpt4"), ("y/my-sys.answers.jsonl", "my-sys"),
    ("y/grep-run1.background-train.subtask_2_ents.test.tsv", "grep-run1")])
def test_a_system_is_never_named_after_a_split_or_a_format(name: str, system: str) -> None:
    from refbench.tasks.answers import system_name

    assert system_name(name) == system


def test_tne_convert_takes_the_run_folder_tne_baseline_writes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "se.jsonl"  # a run folder, though named like a file
    code, _, err = _cli(capsys, "tne", "baseline", "surface-expand", "--data",
                        TNE / "docs.jsonl", "--out", run, "--no-store")
    assert code == 0 and run.is_dir(), err
    code, out, err = _cli(capsys, "tne", "convert", run, tmp_path / "board.jsonl", "--gold",
                          TNE / "docs.jsonl")
    assert code == 0, err
    n = len((TNE / "docs.jsonl").read_text().splitlines())
    assert out.strip() == f"wrote {n} documents to {tmp_path / 'board.jsonl'}"
    assert len((tmp_path / "board.jsonl").read_text().splitlines()) == n


def test_ctrl_c_in_training_says_what_stays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from refbench.core.trainer import trainer_class

    def interrupted(self: Any, job: Any) -> dict[str, Any]:
        (job.out / "checkpoint").mkdir(parents=True)
        (job.out / "head.pt").write_bytes(b"x")
        (job.out / "progress.json").write_text("[]\n")
        raise KeyboardInterrupt

    monkeypatch.setattr(trainer_class("encoder-head"), "train", interrupted)
    data = ROOT / "tests" / "fixtures" / "winograd" / "wsc-tiny.jsonl"
    code, _, err = _cli(capsys, "train", "--model", "encoder-head", "--data", data,
                        "--out", tmp_path / "m")
    assert code == 130
    assert "nothing was written" not in err
    assert f"interrupted: the training so far stays in {tmp_path / 'm'}: checkpoint/, head.pt, " \
           "progress.json" in err and "--resume" in err
