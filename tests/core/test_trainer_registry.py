"""Trainers are registered like models (:data:`refbench.core.registry.TRAINERS`, entry point
group ``refbench.trainers``), each declaring its options with ``Option``; ``refbench train``
knows none of them by name. A trainer registered here for a test's duration, and one from the
plugin distribution of ``tests/fixtures/plugin``, train through the same command."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from refbench.api import Option, Trainer, TrainJob
from tests.conftest import ROOT
from tests.tasks.test_task_options import cli

FIX = ROOT / "tests" / "fixtures"
WSC = FIX / "winograd" / "wsc-tiny.jsonl"
ALT = FIX / "altentities" / "books-recipes.json"
TNE = FIX / "tne" / "docs.jsonl"


class CountingTrainer(Trainer):
    """Counts the training instances; its one option has a flag of its own."""

    name = "counting"
    summary = "counts the training data (a test's trainer)"
    OPTIONS = (Option("times", int, 1, "how many times to count", min=1, flags=("--times",)),)

    def train(self, job: TrainJob) -> dict[str, Any]:
        n = sum(1 for _ in job.task.read_choices(job.data, options=job.reader_options))
        job.out.mkdir(parents=True, exist_ok=True)
        return {"n": n * self.option("times"), "task": job.task.name,
                "reader": job.reader_options, "argument": self.argument}

    def done(self, report: dict[str, Any], job: TrainJob) -> str:
        return f"counted {report['n']}"


@pytest.fixture()
def counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """One registry line for this test, as a plugin's entry point would add it."""
    from refbench.core.registry import TRAINERS, Entry

    entries = dict(TRAINERS._entries)
    entries["counting"] = Entry("counting", "tests.core.test_trainer_registry:CountingTrainer", "",
                                "refbench-test-trainer 0.1")
    monkeypatch.setattr(TRAINERS, "_entries", entries)
    yield


def test_every_trainer_declares_its_options() -> None:
    from refbench.core.registry import TRAINERS
    from refbench.core.trainer import trainer_class

    assert TRAINERS.names()[:4] == ["cross-encoder", "llm-loglik", "encoder-head", "tne"]
    for name in TRAINERS.names():
        cls = trainer_class(name)
        assert cls.name == name and cls.OPTIONS
        assert all(isinstance(o, Option) for o in cls.OPTIONS)


def test_a_registered_trainer_trains_through_the_generic_command(counting: None,
                                                                 tmp_path: Path) -> None:
    code, out, err = cli("train", "--model", "counting:base", "--data", str(ALT), "--out",
                         str(tmp_path / "m"), "--times", "3", "--input", "name", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["n"] > 0 and report["n"] % 3 == 0
    assert (report["task"], report["reader"], report["argument"]) == (
        "altentities", {"input_type": "name"}, "base")
    code, out, err = cli("train", "--model", "counting", "--data", str(WSC), "--out",
                         str(tmp_path / "m2"), "--train-arg", "times=2")
    assert code == 0 and out.startswith("counted ")
    code, out, _ = cli("train", "--help")
    flat = " ".join(out.split())
    assert "--times VALUE how many times to count (an integer >= 1): counting (default 1)" \
        in flat
    assert "counting: times (--times)" in flat


@pytest.mark.parametrize(("args", "message"), [
    (["--times", "0"], "--times: trainer counting: option times='0' is not an integer >= 1"),
    (["--train-arg", "speed=3"], "trainer counting has no option 'speed'; its options: "
                                 "times (--times)"),
    (["--epochs", "2"], "--epochs: trainer counting has no option 'epochs'"),
])
def test_a_trainers_options_are_checked(counting: None, tmp_path: Path, args: list[str],
                                        message: str) -> None:
    code, _, err = cli("train", "--model", "counting", "--data", str(WSC), "--out",
                       str(tmp_path / "m"), *args)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_the_tne_trainer_takes_no_task_options(tmp_path: Path) -> None:
    code, _, err = cli("train", "--model", "tne", "--data", str(TNE), "--out",
                       str(tmp_path / "m"), "--augment")
    assert code == 2 and "TNE trainer reads TNE documents as they are" in err
    code, _, err = cli("train", "--model", "tne", "--data", str(TNE), "--out",
                       str(tmp_path / "m"), "--head", "joint")
    assert code == 2 and "option head='joint' is not one of coupled, decoupled" in err


def test_a_plugin_trainer_from_an_entry_point(tmp_path: Path) -> None:
    from tests.journey.test_plugins import plugin_cli

    listed = plugin_cli("ls", "trainers")
    assert listed.returncode == 0, listed.stderr
    assert "majority" in listed.stdout and "[from refbench-plugin-demo 0.1.0]" in listed.stdout
    trained = plugin_cli("train", "--model", "majority", "--data", str(WSC), "--out",
                         str(tmp_path / "maj"), "--tie", "1", "--json")
    assert trained.returncode == 0, trained.stderr
    report = json.loads(trained.stdout)
    assert report["n_train"] > 0 and report["answer"] in (0, 1)
    assert json.loads((tmp_path / "maj" / "majority.json").read_text()) == report


def test_the_tne_trainer_trains_through_the_generic_command(tmp_path: Path,
                                                          tiny_encoder: Path) -> None:
    """``refbench train --model tne`` is ``refbench tne train``: one trainer behind both."""
    code, out, err = cli("train", "--model", "tne", "--data", str(TNE), "--out",
                         str(tmp_path / "m"), "--train-arg", f"encoder={tiny_encoder}",
                         "--max-steps", "1", "--epochs", "1", "--device", "cpu", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["steps_done"] == 1 and report["encoder"] == str(tiny_encoder)
    assert (tmp_path / "m" / "config.json").is_file()
