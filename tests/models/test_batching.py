"""Batched scoring gives the one-at-a-time scores; resumed runs see the batches an
uninterrupted run sees; every place a model is loaded refuses a missing or broken file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, build_model
from refbench.runs.record import RunSettings
from refbench.runs.runner import run_model
from refbench.runs.store import Store
from refbench.tasks.choices import read_choices
from tests.conftest import run_cli
from tests.models.conftest import DATA


def test_batched_loglik_equals_one_at_a_time(tiny_lm: Path) -> None:
    insts = [*read_choices(DATA["winograd"]), *list(read_choices(DATA["knowref-json"]))[:3],
             *list(read_choices(DATA["altentities"]))[:2]]
    one = build_model(f"llm-loglik:{tiny_lm}", {"batch_size": "1"})
    many = build_model(f"llm-loglik:{tiny_lm}", {"batch_size": "5"})
    a, b = one.predict(insts), many.predict(insts)
    assert [o.answer for o in a] == [o.answer for o in b]
    diffs = [abs(x - y) for p, q in zip(a, b, strict=True)
             for x, y in zip(p.scores, q.scores, strict=True)]
    assert len(diffs) >= 2 * len(insts) and max(diffs) < 1e-4
    assert one.fingerprint() != many.fingerprint()  # the batch size keys the cache


def test_cross_encoder_grouped_logits_equal_one_batch() -> None:
    import torch

    insts = [*list(read_choices(DATA["kitmus-native"]))[:3],
             *list(read_choices(DATA["knowref-json"]))[:3],
             *list(read_choices(DATA["altentities"]))[:2]]
    model = build_model("cross-encoder", {"batch_size": "3"})
    model.keep_selections = True  # type: ignore[attr-defined]
    with torch.inference_mode():
        grouped = model.logits(insts, grouped=True)  # type: ignore[attr-defined]
        single = model.logits(insts)  # type: ignore[attr-defined]
    assert grouped.shape == single.shape and float((grouped - single).abs().max()) < 1e-4


class Recorder(ChoiceModel):
    """Records the batches it is given; scores depend on the batch (like padding does)."""

    name = "recorder"
    batch_size = 2

    def __init__(self, fail_at: int | None = None) -> None:
        super().__init__(None)
        self.calls: list[list[str]] = []
        self.fail_at = fail_at

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        if self.fail_at is not None and len(self.calls) == self.fail_at:
            raise KeyboardInterrupt
        self.calls.append([inst.id for inst in batch])
        noise = 1e-7 * len("".join(inst.id for inst in batch))
        return [ModelOutput(0, tuple(noise for _ in inst.candidates)) for inst in batch]


def test_resumed_run_sees_the_uninterrupted_batches(tmp_path: Path) -> None:
    """Interrupted after one batch, or after a ``--limit 3`` run that cached half a batch:
    the finishing run predicts exactly the uninterrupted run's remaining batches, and its
    predictions file is byte-identical (these scores change with batch composition)."""
    data = DATA["altentities"]  # five instances: batches of 2, 2 and 1
    whole = Recorder()
    run_model("recorder", data, tmp_path / "whole", progress=False, model=whole)
    assert len(whole.calls) >= 3
    expected = (tmp_path / "whole" / "predictions.jsonl").read_bytes()
    store = Store(tmp_path / "a.sqlite")
    with pytest.raises(KeyboardInterrupt):
        run_model("recorder", data, tmp_path / "a", store=store, progress=False,
                  model=Recorder(fail_at=1))
    again = Recorder()
    metrics = run_model("recorder", data, tmp_path / "a", store=store, progress=False,
                        model=again)
    assert again.calls == whole.calls[1:] and metrics["n_cached"] == 2
    assert (tmp_path / "a" / "predictions.jsonl").read_bytes() == expected
    store = Store(tmp_path / "b.sqlite")
    run_model(RunSettings("recorder", limit=3), data, tmp_path / "b", store=store,
              progress=False, model=Recorder())
    again = Recorder()
    metrics = run_model("recorder", data, tmp_path / "b", store=store, progress=False,
                        model=again)
    assert again.calls == whole.calls[1:] and metrics["n_cached"] == 2
    assert (tmp_path / "b" / "predictions.jsonl").read_bytes() == expected


def test_model_folders_that_are_missing_or_broken(tmp_path: Path) -> None:
    data = str(DATA["winograd"])
    no_weights = tmp_path / "no-weights"
    no_weights.mkdir()
    (no_weights / "config.json").write_text(json.dumps({"head": "joint"}))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text(json.dumps({"head": "joint"}))
    (broken / "model.pt").write_bytes(b"\x00garbage")
    cases = [(f"cross-encoder:{tmp_path / 'absent'}", "not a trained cross-encoder folder"),
             (f"cross-encoder:{no_weights}", "not found"),
             (f"cross-encoder:{broken}", "not a readable torch file"),
             (f"llm-loglik:{tmp_path / 'no-lm'}", "no such model folder")]
    for spec, message in cases:
        r = run_cli("run", "--model", spec, "--data", data, "--out", str(tmp_path / "o"),
                    "--no-store")
        assert r.returncode == 2, (spec, r.stderr)
        assert message in r.stderr and spec.partition(":")[2] in r.stderr, r.stderr
        assert "Traceback" not in r.stderr
    assert not (tmp_path / "o").exists()
    with pytest.raises(RefbenchError, match="no checkpoint to resume from"):
        from refbench.models.train import train_cross_encoder

        train_cross_encoder(list(read_choices(DATA["winograd"])), [], tmp_path / "t",
                            resume=True, progress=False)
    r = run_cli("train", "--model", "cross-encoder", "--data", data, "--out",
                str(tmp_path / "t2"), "--resume")
    assert r.returncode == 2 and "no checkpoint to resume from" in r.stderr
    assert not (tmp_path / "t2").exists()
