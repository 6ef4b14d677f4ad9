"""``encoder-head`` (frozen MiniLM sentence vectors, a small trained head) and the selection rule
every trainer follows: selection data is never a test split. Tiny data only: trainings are
benchmarks, not tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from scripts.regen_golden import GOLDEN

from refbench.core.errors import UsageError
from refbench.models.base import build_model
from refbench.models.encoder_head import FeatureCache, instance_texts
from refbench.models.selection import is_test_file, refuse_test_selection
from refbench.tasks.choices import read_choices
from tests.conftest import ROOT, run_cli

FICT = GOLDEN / "background-inference-charfict-wordfict"


def _split(name: str) -> list:  # type: ignore[type-arg]
    return [x for n in (2, 3) for x in read_choices(FICT / f"subtask_{n}_ents" / f"{name}.jsonl")]


def test_instance_texts_are_the_knowledge_and_the_situation() -> None:
    inst = _split("test")[-1]
    texts = instance_texts(inst)
    assert inst.expression in texts.expression.split()
    for own in texts.own:  # "Stalling is a caesamer ." without the name
        assert own.startswith("Someone is a")
    assert not any(c.text in t for c in inst.candidates for t in texts.own)
    assert sum(t.startswith("The work of a") for t in texts.background) == len(inst.candidates)
    assert not any(c.text in t for c in inst.candidates for t in texts.background)


def test_encoder_head_trains_resumes_and_runs(tmp_path: Path) -> None:
    from refbench.models.train_head import HeadSettings, train_encoder_head

    train, dev, test = _split("train"), _split("validation"), _split("test")
    out, cache = tmp_path / "head", tmp_path / "features"
    first = train_encoder_head(train, dev, out, settings=HeadSettings(epochs=2), cache=cache,
                               progress=False)
    assert first["epochs_done"] == 2 and [e["epoch"] for e in first["log"]] == [0, 1, 2]
    assert first["costs"]["texts_encoded_train"] > 0 and list(cache.glob("chunk-*.pt"))
    # A fresh folder with the same settings reads every vector back from the cache.
    fresh = train_encoder_head(train, dev, tmp_path / "head2", settings=HeadSettings(epochs=2),
                               cache=cache, progress=False)
    assert fresh["costs"]["texts_encoded_train"] == 0
    assert [(e["loss"], e["dev_accuracy"]) for e in fresh["log"]] == \
        [(e["loss"], e["dev_accuracy"]) for e in first["log"]]
    assert len(FeatureCache(cache).vectors) == first["costs"]["texts_cached"]
    model = build_model(f"encoder-head:{out}", {"features": str(cache)})
    outs = model.predict(test)
    assert [len(o.scores) for o in outs] == [len(x.candidates) for x in test]
    assert all(o.answer is not None for o in outs)
    r = run_cli("run", "--model", f"encoder-head:{out}", "--data",
                str(FICT / "subtask_3_ents" / "test.jsonl"), "--out", str(tmp_path / "run"))
    assert r.returncode == 0, r.stderr


def test_encoder_head_resume_continues_after_the_last_epoch(tmp_path: Path) -> None:
    from refbench.models.train_head import HeadSettings, train_encoder_head

    train, dev = _split("train"), _split("validation")
    cache = tmp_path / "features"
    whole = train_encoder_head(train, dev, tmp_path / "a", settings=HeadSettings(epochs=3),
                               cache=cache, progress=False)
    part = tmp_path / "b"
    train_encoder_head(train, dev, part, settings=HeadSettings(epochs=2), cache=cache,
                       progress=False)
    state = part / "checkpoint" / "state.pt"
    import torch

    saved = torch.load(state, weights_only=True)
    saved["settings"]["epochs"] = 3  # as if the 3-epoch run had stopped after epoch 2
    torch.save(saved, state)
    resumed = train_encoder_head(train, dev, part, settings=HeadSettings(epochs=3), cache=cache,
                                 resume=True, progress=False)
    assert [e["loss"] for e in resumed["log"]] == [e["loss"] for e in whole["log"]]
    assert (part / "head.pt").read_bytes() == (tmp_path / "a" / "head.pt").read_bytes()


def test_encoder_head_folder_errors(tmp_path: Path) -> None:
    r = run_cli("run", "--model", f"encoder-head:{tmp_path}", "--data",
                str(FICT / "subtask_3_ents" / "test.jsonl"), "--out", str(tmp_path / "run"))
    # the one error line (after the line that says which store a run records into)
    assert r.returncode == 2 and r.stderr.splitlines()[-1].startswith("error E")
    assert "not a trained encoder-head folder" in r.stderr


@pytest.mark.parametrize("name, test", [("test.jsonl", True), ("knowref_test.json", True),
                                        ("test.tsv", True), ("gap-test.tsv", True),
                                        ("validation.jsonl", False), ("dev.tsv", False),
                                        ("contest.jsonl", False), ("latest.json", False)])
def test_test_files_are_recognised(name: str, test: bool) -> None:
    assert is_test_file(Path("x") / name) is test


def test_trainers_refuse_test_instances_as_selection_data(tmp_path: Path) -> None:
    from refbench.models.train_head import train_encoder_head

    with pytest.raises(UsageError, match="test split"):
        refuse_test_selection(instances=_split("test"))
    with pytest.raises(UsageError, match="test split"):
        train_encoder_head(_split("train"), _split("test"), tmp_path / "h", progress=False)
    assert not (tmp_path / "h").exists()


@pytest.mark.parametrize("trainer", ["encoder-head", "cross-encoder", "llm-loglik"])
def test_train_refuses_a_test_file_as_dev(trainer: str, tmp_path: Path) -> None:
    folder = FICT / "subtask_3_ents"
    r = run_cli("train", "--model", trainer, "--data", str(folder / "train.jsonl"), "--dev",
                str(folder / "test.jsonl"), "--out", str(tmp_path / "m"))
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error E100") and len(r.stderr.strip().splitlines()) == 1
    assert "cannot be selection data" in r.stderr and not (tmp_path / "m").exists()


@pytest.mark.parametrize("script", ["lm_ranker.py", "kitmus_head.py"])
def test_benchmarks_refuse_a_test_file_as_selection_data(script: str, tmp_path: Path) -> None:
    args = ["--suite", str(GOLDEN), "--variant", FICT.name, "--entities", "3", "--dev",
            str(FICT / "subtask_3_ents" / "test.jsonl"), "--out", str(tmp_path / "m")]
    if script == "lm_ranker.py":
        args = ["--task", "kitmus", *args]
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error E100") and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "m").exists()


def test_encoder_head_is_a_trainable_registered_model() -> None:
    r = run_cli("ls", "models")
    assert r.returncode == 0 and "encoder-head" in r.stdout


def test_refbench_train_encoder_head(tmp_path: Path) -> None:
    import json

    folder = FICT / "subtask_3_ents"
    out = tmp_path / "head"
    r = run_cli("train", "--model", "encoder-head", "--data", str(folder / "train.jsonl"),
                "--dev", str(folder / "validation.jsonl"), "--out", str(out), "--epochs", "2",
                "--features", str(tmp_path / "features"), "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["epochs_done"] == 2 and (out / "head.pt").is_file()
    assert list((tmp_path / "features").glob("chunk-*.pt"))
    # the defaults are the recorded rows' recipe: rank 0 (docs/kitmus-head.md)
    assert report["rank"] == 0 and report["epochs"] == 2
    refused = run_cli("train", "--model", "encoder-head", "--data", str(folder / "train.jsonl"),
                      "--out", str(tmp_path / "x"), "--eval-every", "5")
    assert refused.returncode == 2
    assert "trainer encoder-head has no option 'eval_every'" in refused.stderr
