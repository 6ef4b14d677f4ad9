"""KnowRef JSON gold: the name (correct_candidate) decides, the index only when it cannot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.tasks.choices import read_choices
from refbench.tasks.knowref.check import check_files
from refbench.tasks.knowref.switch import switch_file
from refbench.tasks.lookup import get_task
from tests.conftest import run_cli

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "knowref" / "gold_conflict.json"


def test_gold_follows_the_name_not_the_index() -> None:
    insts = list(read_choices(FIX))
    # instance 0: index 1 (Vasquez) but the name, and the sentence, say Okonkwo
    assert [i.gold for i in insts] == [0, 1, 1, 1]
    assert [i.metadata["gold_source"] for i in insts] == [
        "name", "name", "name", "index (identical candidates)"]


def test_check_lists_every_disagreement(tmp_path: Path) -> None:
    report = check_files([FIX])
    f = report["files"][0]
    assert f["gold_disagreements"] == 2
    assert [d["index"] for d in f["gold_disagreement_instances"]] == [0, 1]
    assert f["gold_disagreement_instances"][0]["index_names"] == "Vasquez"
    assert f["identical_candidates"] == [3]
    r = run_cli("knowref", "check", str(FIX))
    assert r.returncode == 0
    assert "disagrees with correct_candidate (the name) in 2 instances" in r.stdout
    r = run_cli("knowref", "check", str(FIX), "--json")
    assert json.loads(r.stdout)["gold_disagreements"] == 2


def test_switched_copy_has_both_gold_fields_agreeing(tmp_path: Path) -> None:
    out = tmp_path / "switched.json"
    switch_file(FIX, out)
    records = json.loads(out.read_text())
    for rec in records:
        cand = rec[f"candidate{rec['correct_candidate_idx']}"]
        assert cand == rec["correct_candidate"]
    assert [i.gold for i in read_choices(out)] == [1, 0, 0]  # identical candidates: not switched


@pytest.mark.parametrize(("change", "message"), [
    ({"correct_candidate": ["Nobody"]}, "is neither candidate0"),
    ({"correct_candidate_idx": True, "correct_candidate": None}, "expected 0 or 1"),
    ({"correct_candidate_idx": 2, "correct_candidate": None}, "expected 0 or 1"),
    ({"candidate0": 5}, r"field 'candidate0': expected a name \(a non-empty string or list "
                        r"of tokens\), found a number \(5\)"),
])
def test_bad_gold_fields_are_named(tmp_path: Path, change: dict[str, object],
                                   message: str) -> None:
    records = json.loads(FIX.read_text())
    records[1].update(change)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(records))
    with pytest.raises(RefbenchError, match=message) as err:
        list(read_choices(bad, task=get_task("knowref")))
    assert "instance 1 (original id 12)" in str(err.value)
