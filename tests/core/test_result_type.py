"""The typed Result: every metrics.json refbench has written reads back (migrated), its
identity, coverage and figures are typed, and writing it again keeps every key older readers
use. The fixtures in tests/fixtures/results/v0 were written by earlier refbench versions (the
commit before the Result type, and the older commits c6b0c93^ and a749655), unedited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.result import (
    BY_LIMIT,
    BY_LM_EVAL_LIMIT,
    BY_MISSING,
    BY_SHARD,
    SCHEMA_VERSION,
    Coverage,
    Result,
    SystemIdentity,
    complete_and_partial,
    gold_mismatch,
    name_clash,
    names_apart,
    refuse_name_clash,
    system_of,
)

V0 = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "v0"
RUN_FILES = sorted(p for p in V0.glob("*.json")
                   if not p.name.startswith(("suite-results", "winobias-limit-results",
                                             "winogender-results")))


def _load(name: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((V0 / name).read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("path", RUN_FILES, ids=lambda p: p.stem)
def test_every_old_metrics_file_reads_and_round_trips(path: Path) -> None:
    old = json.loads(path.read_text(encoding="utf-8"))
    r = Result.read(path)
    assert r.schema == SCHEMA_VERSION and r.task == old["task"]
    assert r.coverage.n <= int(old["n"])
    new = r.to_json()
    for key, value in old.items():  # every key an older reader used is still there
        if key != "data_coverage":
            assert key in new, key
            if key not in ("n",):
                assert new[key] == value or key in ("system",), key
    again = Result.from_json(json.loads(json.dumps(new)))
    assert again == Result.from_json(new)
    assert again.to_json() == new


def test_the_oldest_runner_file_migrates() -> None:
    r = Result.read(V0 / "old-a749655-wsc-limit.json")  # no system, split, limit, sha256 field
    assert r.system == SystemIdentity("first", r.system.fingerprint, None)
    assert r.data.sha256 is not None  # from its provenance
    assert r.data.split is None and r.coverage == Coverage(25, 25, ())
    assert r.value("accuracy") == pytest.approx(0.52)


def test_identity_of_a_named_run() -> None:
    r = Result.read(V0 / "kitmus-limit.json")
    assert r.system.model == "random" and r.system.display_name == "S" and r.system.name == "S"
    assert r.system.fingerprint == "dd87e5af1c7a950e5fa1df75"
    assert r.data.sha256 == r.details["provenance"]["inputs"]["data"][0]["sha256"]
    assert r.data.name == "background-pretrain/subtask_3_ents/test.jsonl"
    assert r.data.split == "test" and r.task_version == 1
    assert r.label().startswith("S on background-pretrain/subtask_3_ents/test.jsonl, test split")


def test_coverage_of_every_kind_of_old_file() -> None:
    # --limit 1 of 2: the limit cut the data, N was not recorded
    assert Result.read(V0 / "kitmus-limit.json").coverage == Coverage(1, None, (BY_LIMIT,))
    # --limit 50 on a larger file
    lim = Result.read(V0 / "kitmus-official-limit.json")
    assert lim.is_partial and lim.coverage.by == (BY_LIMIT,)
    assert "partial" in lim.label() and "50 of ?" in lim.label()
    # --limit larger than the data: complete
    assert not Result.read(V0 / "kitmus-first.json").is_partial
    # a shard: n of its whole data
    shard = Result.read(V0 / "wsc-s1.json")
    assert shard.coverage.of == 273 and shard.coverage.by == (BY_SHARD,)
    assert not Result.read(V0 / "wsc-merged.json").is_partial
    # an lm-eval --limit import
    lm = Result.read(V0 / "lm-eval-suite-limit-sub.json")
    assert lm.coverage == Coverage(1, 2, (BY_LM_EVAL_LIMIT,))
    assert lm.coverage.text() == "1 of 2 instances (partial: lm-eval --limit)"
    # evaluate --out of a --limit run: predictions missing for most of the gold
    ev = Result.read(V0 / "evaluate-out-knowref-limit.json")
    assert ev.coverage == Coverage(30, 1269, (BY_MISSING,))


def test_figures_and_intervals() -> None:
    r = Result.read(V0 / "wsc.json")
    acc = r.figure("accuracy")
    assert acc is not None and acc.interval is not None
    assert acc.value == pytest.approx(0.5018, abs=1e-3)
    assert r.interval_method is not None and r.interval_method.resamples == 1000
    assert r.figure("n") is None and r.figure("n_with_gold") is None
    k = Result.read(V0 / "kitmus-first.json")
    assert {"accuracy", "pronoun_accuracy", "antecedent_f1"} <= {f.name for f in k.figures}


def test_schema_2_records_coverage_and_reads_back() -> None:
    r = Result.read(V0 / "knowref-limit.json").with_coverage(Coverage(30, 1269, (BY_LIMIT,)))
    d = r.to_json()
    assert d["schema"] == SCHEMA_VERSION and d["coverage_of"] == 1269
    assert d["partial_by"] == [BY_LIMIT]
    assert d["data_coverage"] == {"n": 30, "of": 1269, "by": "--limit"}
    assert Result.from_json(d).coverage == Coverage(30, 1269, (BY_LIMIT,))


def test_a_newer_schema_or_not_a_result_is_one_error() -> None:
    with pytest.raises(RefbenchError, match="upgrade refbench"):
        Result.from_json({"task": "winograd", "n": 1, "schema": SCHEMA_VERSION + 1})
    with pytest.raises(RefbenchError, match="no task"):
        Result.from_json({"n": 1})


def test_system_of_paths_and_mappings(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.json").write_text((V0 / "kitmus-limit.json").read_text())
    (run / "predictions.jsonl").write_text("")
    want = SystemIdentity("random", "dd87e5af1c7a950e5fa1df75", "S")
    assert system_of(run) == want == system_of(run / "predictions.jsonl")
    assert system_of(tmp_path) == want  # a folder run's --out
    wsc = _load("wsc.json")
    assert system_of(wsc) == SystemIdentity("first", str(wsc["model_fingerprint"]), None)
    assert system_of(tmp_path / "answers.jsonl") is None


def test_the_rules() -> None:
    a = SystemIdentity("first", "aaaaaa11", "S")
    b = SystemIdentity("random", "bbbbbb22", "S")
    assert name_clash([a, a]) is None and name_clash([a, b]) == (a, b)
    with pytest.raises(UsageError) as exc:
        refuse_name_clash([a, b])
    assert "model first" in str(exc.value) and "model random" in str(exc.value)
    assert "\n" not in str(exc.value)
    assert names_apart([a, b]) == ["S [first aaaaaa]", "S [random bbbbbb]"]
    full = Result.read(V0 / "wsc.json")
    part = Result.read(V0 / "kitmus-limit.json")
    assert complete_and_partial([part, full]) == ([full], [part])
    assert gold_mismatch("a" * 64, "a" * 64, "g") is None
    assert gold_mismatch(None, "b" * 64, "g") is None
    line = gold_mismatch("a" * 64, "b" * 64, "gold.jsonl")
    assert line is not None and "gold.jsonl" in line and "\n" not in line
