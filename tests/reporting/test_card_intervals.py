"""Issue 50: an interval always contains its figure, in the model card too. A card over real
runs of ``first`` and ``random`` on every task's release (../shared/data): every record with
an interval has ci_low <= value <= ci_high, for Wilson intervals the card works out and for
the bootstrap intervals the runs recorded (KITMUS, GAP's F1, WinoBias' Diff, TNE's F1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SHARED, cli_ok, needs_shared

DATA = SHARED / "data"
pytestmark = needs_shared(DATA)

RELEASES = ["wsc273", "winogrande", "gap:test", "knowref:test", "altentities:books-test",
            "winogender", "winobias",
            str(DATA / "kitmus-official" / "released" / "background-train" / "subtask_2_ents"
                / "full-text" / "test.v4_gold_conll.gz")]
SLACK = 1e-9


@pytest.mark.filterwarnings("ignore::refbench.core.errors.RefbenchWarning")  # KnowRef's 3
def test_every_card_record_s_interval_contains_its_figure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import refbench

    monkeypatch.setenv("REFBENCH_DATA_DIR", str(DATA))
    runs = tmp_path / "runs"
    for model in ("first", "random"):
        refbench.run(model, RELEASES, out=runs / model, store=None, progress=False)
    cli_ok(capsys, "tne", "baseline", "surface", "--data", DATA / "tne" / "test.jsonl.gz",
           "--out", runs / "tne", "--store", tmp_path / "s.sqlite")
    records = refbench.card([runs]).records()
    benchmarks = {r["benchmark"] for r in records}
    assert len(benchmarks) >= len(RELEASES) + 1  # every release and TNE has its column
    assert {r["system"] for r in records} >= {"first", "random"}
    with_interval = [r for r in records if r["ci_low"] is not None]
    assert len(with_interval) >= 2 * len(RELEASES)
    for r in with_interval:
        assert r["ci_low"] - SLACK <= r["value"] <= r["ci_high"] + SLACK, r
        assert 0.0 <= r["ci_low"] <= r["ci_high"]
    # the systems tell apart: the intervals are not one constant
    assert len({(r["ci_low"], r["ci_high"]) for r in with_interval}) > len(RELEASES)
