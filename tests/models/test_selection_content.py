"""Selection off test, by content (issue 50, point 3): every trainer refuses a test file as dev
data, whatever it is called, because the test instances of every known release are recognised
by their text (``tasks/test_content.txt.gz``)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from refbench.core.types import Candidate, ChoiceInstance
from refbench.tasks.selection import choice_key, content_key, content_table
from tests.conftest import SHARED, needs_shared

DATA = SHARED / "data"


def _cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str]:
    from refbench.cli import app
    from refbench.core.commands import run_guarded

    code = run_guarded(app, [str(a) for a in args])
    return code, capsys.readouterr().err


def test_a_key_ignores_spacing_case_and_candidate_order() -> None:
    a = ChoiceInstance("x", "knowref", 'Tom  met "Bill". He left.', "He",
                       (Candidate("Tom"), Candidate("Bill")), 0)
    b = ChoiceInstance("other-id", "knowref", "tom met bill he left", "he",
                       (Candidate("Bill"), Candidate("Tom")), 1)
    assert choice_key(a) == choice_key(b)
    assert choice_key(a) != content_key("tom met bill he left")
    assert len(content_key("x")) == 10


def test_the_table_knows_every_release_with_a_test_split() -> None:
    releases = set(content_table().values())
    assert {"wsc273 (test)", "knowref (test)", "gap (test)", "tne (test)",
            "altentities (test)", "winogender (test)", "winobias (test)", "kitmus (test)",
            "kitmus-suite (test)"} <= releases
    assert len(content_table()) > 15_000


@needs_shared(DATA / "tne")
def test_tne_train_refuses_the_test_file_and_a_renamed_copy(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, err = _cli(capsys, "tne", "train", "--data", DATA / "tne" / "dev.jsonl.gz", "--dev",
                     DATA / "tne" / "test.jsonl.gz", "--out", tmp_path / "m", "--max-steps",
                     "1", "--limit", "1")
    assert code == 2 and err.startswith("error E100") and "cannot be selection data" in err
    with gzip.open(DATA / "tne" / "test.jsonl.gz", "rt") as fh:
        docs = [json.loads(next(fh)) for _ in range(3)]
    copy = tmp_path / "held-out.jsonl"  # re-serialised: other spacing, three documents
    copy.write_text("".join(json.dumps(d, indent=None, separators=(",", ":")) + "\n"
                            for d in docs))
    code, err = _cli(capsys, "tne", "train", "--data", DATA / "tne" / "dev.jsonl.gz", "--dev",
                     copy, "--out", tmp_path / "m", "--max-steps", "1", "--limit", "1")
    assert code == 2, err
    assert err.startswith("error E100") and "3 of 3 instances" in err and "tne (test)" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "m").exists()


@needs_shared(DATA / "knowref")
@pytest.mark.parametrize("trainer", ["cross-encoder", "encoder-head", "llm-loglik"])
def test_every_trainer_refuses_a_renamed_knowref_test_file(
        trainer: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    copy = tmp_path / "selection.json"
    shutil.copy(DATA / "knowref" / "knowref_test.json", copy)
    code, err = _cli(capsys, "train", "--model", trainer, "--data", DATA / "knowref" / "dev.tsv",
                     "--dev", copy, "--out", tmp_path / "m")
    assert code == 2, err
    assert err.startswith("error E100") and "1269 of 1269 instances" in err
    assert "knowref (test)" in err and not (tmp_path / "m").exists()


@needs_shared(DATA / "winograd")
def test_a_renamed_wsc273_with_new_ids_is_refused_and_its_dev_split_is_not(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rows = [json.loads(line) for line in
            (DATA / "winograd" / "wsc273.jsonl").read_text().splitlines()[:20]]
    copy = tmp_path / "mine.jsonl"
    copy.write_text("".join(json.dumps({**r, "qID": f"mine-{k}"}) + "\n"
                            for k, r in enumerate(rows)))
    from refbench.core.errors import UsageError
    from refbench.core.trainer import TrainJob
    from refbench.tasks.lookup import get_task
    from refbench.tasks.selection import check_selection

    task = get_task("winograd")
    with pytest.raises(UsageError, match=r"20 of 20 instances .*wsc273 \(test\)"):
        check_selection(TrainJob(data=copy, dev=copy, out=tmp_path / "m", task=task))
    dev = DATA / "winograd" / "winogrande-dev.jsonl"
    check_selection(TrainJob(data=dev, dev=dev, out=tmp_path / "m", task=task))  # no error
