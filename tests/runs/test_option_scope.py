"""Options and trained models know their scope (issue 50, point 5): a task's option stays with
its task in a several-data run, a trained model refuses another task unless transfer is
allowed, and ``refbench.run(..., split=)`` is honoured or refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

FIX = ROOT / "tests" / "fixtures"
WSC = FIX / "winograd" / "wsc-tiny.jsonl"
AE = FIX / "altentities" / "books-recipes.json"
GAP = FIX / "gap" / "gap-dev.tsv"


def _cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    from refbench.cli import app
    from refbench.core.commands import run_guarded

    code = run_guarded(app, [str(a) for a in args])
    got = capsys.readouterr()
    return code, got.out, got.err


def _reader(run: Path) -> Any:
    return json.loads((run / "metrics.json").read_text()).get("reader_options")


def test_a_task_arg_stays_with_the_task_that_declares_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "many"
    code, _, err = _cli(capsys, "run", "--model", "first", "--data", WSC, "--data", AE,
                        "--task-arg", "input_type=name", "--out", out, "--no-store")
    assert code == 0, err
    folders = {p.name: p for p in out.iterdir() if p.is_dir()}
    ae = next(p for n, p in folders.items() if "books" in n)
    wsc = next(p for n, p in folders.items() if "wsc" in n)
    assert _reader(ae) == {"input_type": "name"}
    assert not _reader(wsc)  # wsc273 declares no input_type: never recorded there


def test_own_options_keeps_the_declared_keys() -> None:
    from refbench.tasks.lookup import get_task
    from refbench.tasks.scope import own_options

    given = {"input_type": "name", "max_words": 5}
    assert own_options(get_task("altentities"), given) == given
    assert own_options(get_task("winograd"), given) == {}


def _trained_folder(tmp_path: Path, tasks: list[str]) -> Path:
    folder = tmp_path / "head"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"tasks": tasks}))
    return folder


def test_a_model_trained_on_one_task_refuses_another(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _trained_folder(tmp_path, ["kitmus"])
    code, _, err = _cli(capsys, "run", "--model", f"encoder-head:{folder}", "--data", WSC,
                        "--out", tmp_path / "r", "--no-store")
    assert code == 2
    assert err.strip() == (f"error E100: encoder-head:{folder} was trained on kitmus; this "
                           "data is winograd: a transfer, not the task it learned; pass "
                           "--allow-transfer to run it anyway")
    code, _, err = _cli(capsys, "run", "--model", f"encoder-head:{folder}", "--data", WSC,
                        "--out", tmp_path / "r", "--no-store", "--allow-transfer")
    assert err.startswith(f"note: encoder-head:{folder} was trained on kitmus; this data is "
                          "winograd")  # then it runs (here: no weights in the folder)
    assert "head.pt" in err and code == 2


def test_the_same_task_runs_without_a_word(tmp_path: Path) -> None:
    from refbench.models.transfer import check_transfer
    from refbench.tasks.lookup import get_task

    said: list[str] = []
    folder = _trained_folder(tmp_path, ["winograd"])
    check_transfer(f"encoder-head:{folder}", lambda: [get_task("winograd")], allow=False,
                   say=said.append)
    assert said == []


def test_train_records_the_task_and_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from refbench.core.io import sha256_file
    from refbench.core.trainer import trainer_class

    def fake(self: Any, job: Any) -> dict[str, Any]:
        job.out.mkdir(parents=True)
        return {"best_dev_accuracy": 0.5, "epochs_done": 1}

    monkeypatch.setattr(trainer_class("encoder-head"), "train", fake)
    code, _, err = _cli(capsys, "train", "--model", "encoder-head", "--data", WSC,
                        "--out", tmp_path / "m")
    assert code == 0, err
    record = json.loads((tmp_path / "m" / "trained_on.json").read_text())
    assert record["task"] == "winograd" and record["data"] == str(WSC)
    assert record["data_sha256"] == sha256_file(WSC) and record["trainer"] == "encoder-head"
    from refbench.models.transfer import trained_on

    found = trained_on(f"encoder-head:{tmp_path / 'm'}")
    assert found is not None and found.tasks == ("winograd",) and found.data == str(WSC)


def test_python_run_honours_or_refuses_split(tmp_path: Path) -> None:
    import refbench
    from refbench.core.errors import UsageError

    test_file = tmp_path / "test.tsv"
    shutil.copy(GAP, test_file)
    with pytest.raises(UsageError, match=r"split 'dev': .*holds the 'test' split"):
        refbench.run("first", str(test_file), split="dev", store=None, progress=False)
    result = refbench.run("first", str(test_file), split="test", store=None, progress=False)
    assert "test split" in repr(result)


@pytest.mark.skipif(not (ROOT.parent / "shared" / "data" / "gap").exists(),
                    reason="../shared/data absent")
def test_python_run_reads_a_releases_split(monkeypatch: pytest.MonkeyPatch) -> None:
    import refbench

    monkeypatch.setenv("REFBENCH_DATA_DIR", str(ROOT.parent / "shared" / "data"))
    result = refbench.run("first", "gap", split="dev", store=None, progress=False, limit=3)
    assert "gap-development.tsv, dev split" in repr(result)


def test_cli_split_with_a_file_must_be_its_own(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(capsys, "run", "--model", "first", "--data", GAP, "--split", "test",
                        "--out", tmp_path / "r", "--no-store")
    assert code == 2 and "split 'test': " in err and "holds the 'dev' split" in err
    code, _, err = _cli(capsys, "run", "--model", "first", "--data", GAP, "--split", "dev",
                        "--out", tmp_path / "r", "--no-store", "--quiet")
    assert code == 0, err
