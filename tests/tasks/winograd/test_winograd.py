"""Winograd-style sets (WSC273, WinoGrande) on their real files: the reader (counts, gold, the
blank and the candidates' spans, the source slice), its errors, and the scorer (accuracy of a
leaderboard ``.lst`` and of answers JSONL, against counts worked by hand)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.tasks.lookup import get_task
from tests.conftest import ROOT, SHARED, needs_shared

WINOGRAD = SHARED / "data" / "winograd"
WSC = WINOGRAD / "wsc273.jsonl"
TINY = ROOT / "tests" / "fixtures" / "winograd" / "wsc-tiny.jsonl"


@needs_shared(WSC)
@pytest.mark.parametrize(("name", "n", "golds"), [("wsc273.jsonl", 273, {0: 137, 1: 136}),
                                                  ("winogrande-dev.jsonl", 1267,
                                                   {0: 628, 1: 639})])
def test_the_reader_on_the_real_files(name: str, n: int, golds: dict[int, int]) -> None:
    task = get_task("winograd")
    instances = list(task.read_choices(WINOGRAD / name))
    assert len(instances) == n and len({i.id for i in instances}) == n
    assert Counter(i.gold for i in instances) == golds
    for inst in instances:
        assert inst.context[inst.expression_offset] == "_" and inst.expression == "_"
        assert len(inst.candidates) == 2
        for cand in inst.candidates:  # every span found is the candidate's text
            assert all(inst.context[a:b] == cand.text for a, b in cand.char_spans)
    assert {i.metadata["source"] for i in instances} == {name.split(".")[0]}
    first = instances[0]
    if name == "wsc273.jsonl":
        assert first.id == "wsc-1" and first.gold == 0
        assert [c.text for c in first.candidates] == ["city councilmen", "demonstrators"]


@needs_shared(WSC)
def test_the_scorer_on_wsc273_against_hand_counts(tmp_path: Path) -> None:
    task = get_task("winograd")
    instances = list(task.read_choices(WSC))
    # a leaderboard list: option 1 everywhere is right on the 137 instances whose answer is 1
    lst = tmp_path / "ones.lst"
    lst.write_text("1\n" * len(instances), encoding="utf-8")
    result = task.evaluate(WSC, [lst], bootstrap=0)
    assert result["accuracy"] == pytest.approx(137 / 273)
    # answers JSONL: the gold answer for the first 100 instances, the other option after
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(
        json.dumps({"id": inst.id, "answer": inst.gold if k < 100 else 1 - (inst.gold or 0)})
        + "\n" for k, inst in enumerate(instances)), encoding="utf-8")
    result = task.evaluate(WSC, [answers], bootstrap=0)
    assert result["accuracy"] == pytest.approx(100 / 273)
    assert result["n_with_gold"] == 273


def test_the_fixture_reads_and_is_sniffed_as_winograd() -> None:
    from refbench.tasks.choices import infer_task

    assert infer_task(TINY).name == "winograd"
    instances = list(get_task("winograd").read_choices(TINY))
    assert instances and all(i.gold in (0, 1) for i in instances)


@pytest.mark.parametrize(("line", "expected"), [
    ({"qID": "x", "sentence": "The _ and the _ met.", "option1": "a", "option2": "b",
      "answer": "1"}, "exactly one '_', found 2"),
    ({"qID": "x", "sentence": "The _ met.", "option1": "a", "option2": "b", "answer": "3"},
     "field 'answer': expected 1 or 2"),
])
def test_bad_lines_are_one_error_naming_file_line_and_id(tmp_path: Path, line: dict[str, str],
                                                         expected: str) -> None:
    bad = tmp_path / "bad.jsonl"
    good = {"qID": "ok", "sentence": "The _ met.", "option1": "a", "option2": "b",
            "answer": "2"}
    bad.write_text(json.dumps(good) + "\n" + json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(RefbenchError, match=expected) as err:
        list(get_task("winograd").read_choices(bad))
    shown = err.value.render()
    assert f"{bad}:2" in shown and "x" in shown
