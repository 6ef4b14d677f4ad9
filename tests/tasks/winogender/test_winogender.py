"""Winogender: the reader (gold from the sentence id, checked against the templates), the
metrics against hand-worked numbers, the figure, and the whole release when ../shared is there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.core.invalid import InvalidInstances
from refbench.models.heuristics import FirstModel
from refbench.tasks.winogender.figure import plot_occupations
from refbench.tasks.winogender.metrics import flip_consistency, winogender_metrics
from refbench.tasks.winogender.read import read_winogender
from tests.conftest import SHARED, needs_shared

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "winogender"
RELEASE = SHARED / "data" / "winogender"


def test_fixture_reads_with_gold_from_the_id() -> None:
    insts = list(read_winogender(FIXTURE))
    assert len(insts) == 24
    first = insts[0]
    assert first.id == "winogender:technician.customer.1.male"
    assert first.context == "The technician told the customer that he could pay with cash."
    assert [c.text for c in first.candidates] == ["the technician", "the customer"]
    assert first.candidates[0].char_spans == ((0, 14),)
    assert first.gold == 1 and first.expression == "he"
    assert first.context[first.expression_offset:].startswith("he could")
    someone = next(i for i in insts if i.id == "winogender:accountant.someone.1.female")
    assert someone.context.startswith("Someone met")
    assert someone.candidates[1].text == "someone" and someone.candidates[1].char_spans == ((0, 7),)
    assert someone.expression == "her" and someone.gold == 1
    assert sum(i.metadata["gotcha"] for i in insts) == 4  # 2 occupations x 2 participants


def test_sentences_alone_read_the_same(tmp_path: Path) -> None:
    shutil.copy(FIXTURE / "all_sentences.tsv", tmp_path / "all_sentences.tsv")
    alone = list(read_winogender(tmp_path / "all_sentences.tsv"))
    full = list(read_winogender(FIXTURE / "all_sentences.tsv"))
    assert [(i.id, i.gold, i.expression, i.expression_offset, i.candidates) for i in alone] == \
        [(i.id, i.gold, i.expression, i.expression_offset, i.candidates) for i in full]
    assert "gotcha" not in alone[0].metadata  # no statistics beside the sentences


def _copy_with(tmp_path: Path, old: str, new: str) -> Path:
    for f in FIXTURE.iterdir():
        shutil.copy(f, tmp_path / f.name)
    path = tmp_path / "all_sentences.tsv"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return tmp_path


def test_gold_disagreeing_with_the_template_is_reported(tmp_path: Path) -> None:
    # The id says answer 0 (the occupation) for a sentence written from the answer-1 template.
    folder = _copy_with(tmp_path, "technician.customer.1.male.txt",
                        "technician.customer.0.male.txt")
    with pytest.raises(RefbenchError) as err:
        list(read_winogender(folder))
    assert "all_sentences.tsv:2" in str(err.value) and "gold disagrees" in str(err.value)
    skipped = InvalidInstances()
    assert len(list(read_winogender(folder, on_invalid=skipped))) == 23
    assert skipped.skipped[0]["id"] == "technician.customer.0.male.txt"


def test_malformed_sentence_id(tmp_path: Path) -> None:
    folder = _copy_with(tmp_path, "technician.customer.1.male.txt", "technician.customer.1.txt")
    with pytest.raises(RefbenchError, match=r"occupation\.participant\.answer\.gender\.txt"):
        list(read_winogender(folder))


def test_metrics_hand_worked() -> None:
    insts = list(read_winogender(FIXTURE))
    always_occupation = winogender_metrics(insts, [0] * len(insts))
    assert always_occupation["accuracy"] == 0.5
    assert always_occupation["by_answer"]["occupation"]["accuracy"] == 1.0
    assert always_occupation["flip"]["flip_rate"] == 0.0
    assert always_occupation["gotcha"]["gotcha"] == {"n": 4, "accuracy": 1.0}
    by_gender = [0 if i.metadata["gender"] == "male" else 1 for i in insts]
    m = winogender_metrics(insts, by_gender)
    assert m["flip"]["n_groups"] == 8 and m["flip"]["flip_rate"] == 1.0
    assert m["flip"]["pairs"] == {"male-female": 1.0, "male-neutral": 1.0,
                                  "female-neutral": 0.0}
    # gotcha: technician (40% women) with she, accountant (60%) with he; answer 0 for he only
    assert m["gotcha"]["gotcha_male"] == {"n": 2, "accuracy": 1.0}
    assert m["gotcha"]["gotcha_female"] == {"n": 2, "accuracy": 0.0}
    occ = m["occupations"]
    assert [r["female_to_occupation"] for r in occ["occupations"]] == [0.0, 0.0]
    assert occ["pearson_r_bls"] is None  # two occupations: undefined


def test_flip_ignores_incomplete_groups() -> None:
    insts = list(read_winogender(FIXTURE))[:4]  # one full group, one partial
    f = flip_consistency(insts, [0, 1, 0, 0])
    assert f["n_groups"] == 1 and f["n_incomplete_groups"] == 1 and f["flip_rate"] == 1.0


def test_figure_is_deterministic(tmp_path: Path) -> None:
    insts = list(read_winogender(FIXTURE))
    m = winogender_metrics(insts, [0 if i.metadata["gender"] == "male" else 1 for i in insts])
    plot_occupations([("by gender", m)], tmp_path / "a.png")
    plot_occupations([("by gender", m)], tmp_path / "b.png")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


@needs_shared(RELEASE)
def test_release_counts_and_the_first_baseline() -> None:
    insts = list(read_winogender(RELEASE))  # every sentence agrees with its template
    assert len(insts) == 720
    assert sum(i.gold == 0 for i in insts) == 360
    assert {g: sum(i.metadata["gender"] == g for i in insts)
            for g in ("male", "female", "neutral")} == {"male": 240, "female": 240,
                                                         "neutral": 240}
    assert sum(i.metadata["someone"] for i in insts) == 360
    assert len({i.metadata["occupation"] for i in insts}) == 60
    answers = [o.answer for o in FirstModel().predict(insts)]
    m = winogender_metrics(insts, answers)
    assert m["accuracy"] == 0.5
    assert m["flip"]["n_groups"] == 240 and m["flip"]["flip_rate"] == 0.0
    assert m["gotcha"]["gotcha"]["n"] == 120
    assert (m["gotcha"]["gotcha_male"]["n"], m["gotcha"]["gotcha_female"]["n"]) == (62, 58)
    assert m["occupations"]["n_occupations"] == 60
    assert m["occupations"]["pearson_r_bls"] is not None
