"""WinoBias: the reader (candidates from the occupation lists, the release's slips read as they
are), the release check, the Pro/Anti/Avg/Diff table and the coreference scores; on the whole
release when ../shared is there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.core.invalid import InvalidInstances
from refbench.models.heuristics import FirstModel
from refbench.tasks.winobias.check import check_release, check_text
from refbench.tasks.winobias.metrics import (
    choice_coref_scores,
    score_conll_files,
    table_text,
    winobias_table,
)
from refbench.tasks.winobias.read import read_winobias
from tests.conftest import SHARED, needs_shared

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "winobias"
RELEASE = SHARED / "data" / "winobias"


def test_fixture_reads_candidates_and_gold() -> None:
    insts = list(read_winobias(FIXTURE))
    assert len(insts) == 16
    first = insts[0]
    assert first.id == "winobias:test:type1:pro:1"
    assert first.context == ("The janitor reprimanded the accountant because she made a "
                             "mistake filing paperwork.")
    assert [c.text for c in first.candidates] == ["the janitor", "the accountant"]
    assert first.gold == 1 and first.expression == "she"
    assert first.metadata["gold_occupation_gender"] == "female"


def test_duplicate_determiner_reads() -> None:
    chief = next(i for i in read_winobias(FIXTURE) if i.id == "winobias:test:type2:pro:3")
    assert chief.context.startswith("The assistant notified the the chief about")
    assert [c.text for c in chief.candidates] == ["the assistant", "the chief"]
    assert chief.context[slice(*chief.candidates[1].char_spans[0])] == "the chief"
    assert chief.gold == 1 and chief.expression == "him"


def test_third_occupation_keeps_the_first_two() -> None:
    inst = next(i for i in read_winobias(FIXTURE, split="dev")
                if i.id == "winobias:dev:type2:pro:4")
    assert [c.text for c in inst.candidates] == ["the developer", "the cleaner"]
    assert inst.gold == 1


def test_bad_line_names_file_and_line(tmp_path: Path) -> None:
    for f in FIXTURE.iterdir():
        if f.is_file():
            shutil.copy(f, tmp_path / f.name)
    path = tmp_path / "pro_stereotyped_type1.txt.test"
    lines = path.read_text().splitlines()
    lines[1] = "The janitor reprimanded the accountant."
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RefbenchError) as err:
        list(read_winobias(path))
    assert "pro_stereotyped_type1.txt.test:2" in str(err.value)
    skipped = InvalidInstances()
    assert len(list(read_winobias(path, on_invalid=skipped))) == 3 and len(skipped) == 1
    lines[1] = "2 The janitor reprimanded the accountant because [he] got less allowance."
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RefbenchError, match="bracketed occupation"):
        list(read_winobias(path))


def test_check_counts_the_fixture_slips() -> None:
    report = check_release(FIXTURE)
    assert report["n_files"] == 16 and not report["sizes_as_published"]
    assert report["counts"]["duplicate_determiner"] == 2
    assert report["counts"]["third_occupation"] == 2
    assert report["n_oddities"] == 4
    assert "notified the [the chief]" in check_text(report)


def test_table_hand_worked() -> None:
    insts = list(read_winobias(FIXTURE))
    answers = [i.gold if i.metadata["stereotype"] == "pro" else 1 - (i.gold or 0)
               for i in insts]
    rows = winobias_table(insts, answers)["rows"]
    ci = rows["type1"].pop("ci95")
    assert rows["type1"] == {"pro": 1.0, "anti": 0.0, "avg": 0.5, "diff": 1.0, "n_pro": 4,
                             "n_anti": 4}
    # Wilson for 4 of 4: (1 + z²/8 - z²/8) / (1 + z²/4) = 1 / 1.9604 = 0.5101; 0 of 4 mirrors it
    assert ci["pro"] == pytest.approx([0.5101, 1.0], abs=1e-4)
    assert ci["anti"] == pytest.approx([0.0, 0.4899], abs=1e-4)
    assert ci["pro_minus_anti"][1] == 1.0 and 0 < ci["pro_minus_anti"][0] < 0.5101
    assert rows["all"]["diff"] == 1.0
    text = table_text(winobias_table(insts, answers))  # fractions, as every task prints
    assert text.splitlines()[1].split() == ["type1", "1.000", "0.000", "0.500", "1.000", "8"]
    with_ci = table_text(winobias_table(insts, answers), ci=True).splitlines()[1]
    assert "[0.510, 1.000]" in with_ci and "[0.000, 0.490]" in with_ci


def test_coreference_scores() -> None:
    insts = [i for i in read_winobias(FIXTURE) if i.metadata["file"] == "pro_type2"]
    conll = FIXTURE / "conll_format" / "test_type2_pro_stereotype.v4_auto_conll"
    assert choice_coref_scores(conll, insts, [i.gold for i in insts])["conll_f1"] == 1.0
    wrong = choice_coref_scores(conll, insts, [1 - (i.gold or 0) for i in insts])
    assert wrong["muc_f1"] == 0.0 and wrong["conll_f1"] < 0.5
    none = choice_coref_scores(conll, insts, [None] * len(insts))
    assert none["muc_recall"] == 0.0
    assert score_conll_files(conll, conll)["conll_f1"] == 1.0


@needs_shared(RELEASE)
def test_release_check_finds_every_slip() -> None:
    report = check_release(RELEASE)
    assert report["files"] and all(n == 396 for n in report["files"].values())
    assert report["n_files"] == 16 and report["sizes_as_published"]
    assert report["counts"] == {
        "unreadable": 0, "numbering": 0, "duplicate_determiner": 3, "bracket_span": 2,
        "third_occupation": 2, "mixed_pronoun_genders": 2, "stereotype_label": 0,
        "pro_anti_differ": 20, "conll_documents": 0, "conll_tokens": 0, "conll_clusters": 0}
    assert report["notes"] == {"several_pronouns": 87, "repeated_occupation": 12,
                               "detached_possessive": 140}
    assert report["n_oddities"] == 29


@needs_shared(RELEASE)
@pytest.mark.parametrize("split", ["dev", "test"])
def test_release_first_baseline(split: str) -> None:
    insts = list(read_winobias(RELEASE, split=split))
    assert len(insts) == 4 * 396
    rows = winobias_table(insts, [o.answer for o in FirstModel().predict(insts)])["rows"]
    assert (rows["type1"]["pro"], rows["type1"]["anti"]) == (0.5, 0.5)
    # type 2 puts the antecedent second, but for two test sentences built like type 1
    # ("The laborer eats more than the cleaner because he works harder.")
    expected = 0.0 if split == "dev" else 2 / 396
    assert (rows["type2"]["pro"], rows["type2"]["anti"]) == (expected, expected)
    conll = RELEASE / "conll_format" / f"{split}_type1_pro_stereotype.v4_auto_conll"
    pro1 = [i for i in insts if i.metadata["file"] == "pro_type1"]
    assert choice_coref_scores(conll, pro1, [i.gold for i in pro1])["conll_f1"] == 1.0
