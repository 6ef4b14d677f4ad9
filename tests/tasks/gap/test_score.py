"""GAP scorer: hand-worked counts, the official quirks, extra pronoun slices."""

from __future__ import annotations

from pathlib import Path

import pytest

from refbench.tasks.gap.score import score_gap, scorecard
from tests.conftest import SHARED, needs_shared, run_cli

HEADER = "ID\tText\tPronoun\tPronoun-offset\tA\tA-offset\tA-coref\tB\tB-offset\tB-coref\tURL\n"


def row(i: str, pronoun: str, a: bool, b: bool) -> str:
    text = f"Ann met Bea. {pronoun} left."
    return (f"{i}\t{text}\t{pronoun}\t13\tAnn\t0\t{str(a).upper()}\tBea\t8\t"
            f"{str(b).upper()}\turl\n")


@pytest.fixture
def gold(tmp_path: Path) -> Path:
    p = tmp_path / "gold.tsv"
    p.write_text(HEADER + row("m1", "He", True, False) + row("m2", "He", False, True)
                 + row("f1", "She", True, False) + row("t1", "They", False, False)
                 + row("z1", "Ze", True, False))
    return p


def test_hand_worked(gold: Path, tmp_path: Path) -> None:
    system = tmp_path / "sys.tsv"
    # m1 right; m2 says both; f1 says B; t1 missing; z1 right; an unknown id is ignored.
    system.write_text("m1\tTRUE\tFALSE\nm2\tTRUE\tTRUE\nf1\tFALSE\tTRUE\n"
                      "z1\tTRUE\tFALSE\nxx\tTRUE\tFALSE\n")
    r = score_gap(gold, system)
    # overall decisions: m1 tp,tn | m2 fp,tp | f1 fn,fp | t1 missing: fn,fn | z1 tp,tn
    assert r["counts"] == {"tp": 3, "fp": 2, "fn": 3, "tn": 2}
    assert r["precision"] == pytest.approx(3 / 5) and r["recall"] == pytest.approx(3 / 6)
    assert r["f1"] == pytest.approx(2 * 0.6 * 0.5 / 1.1)
    assert r["masculine_counts"] == {"tp": 2, "fp": 1, "fn": 0, "tn": 1}
    assert r["feminine_counts"] == {"tp": 0, "fp": 1, "fn": 1, "tn": 0}
    assert r["f1_feminine"] == 0.0 and r["bias"] is None
    assert r["they_counts"] == {"tp": 0, "fp": 0, "fn": 2, "tn": 0}
    assert r["neopronoun_counts"] == {"tp": 1, "fp": 0, "fn": 0, "tn": 1}
    assert (r["n_missing"], r["n_extra"]) == (1, 1)
    card = scorecard(r)
    assert "Overall recall: 50.0 precision: 60.0 f1: 54.5" in card
    assert "Singular they" in card and "Bias (F/M): -" in card


def test_full_gap_file_as_system_output_and_bias(gold: Path, tmp_path: Path) -> None:
    r = score_gap(gold, gold)
    assert r["f1"] == 1.0 and r["bias"] == pytest.approx(1.0)


def test_duplicate_rows_keep_the_first(gold: Path, tmp_path: Path) -> None:
    system = tmp_path / "sys.tsv"
    system.write_text("m1\tTRUE\tFALSE\nm1\tFALSE\tTRUE\n")
    r = score_gap(gold, system)
    assert r["masculine_counts"]["tp"] == 1
    assert any("multiple annotations for m1" in w for w in r["warnings"])


@needs_shared(SHARED / "data" / "gap")
def test_real_gap_gold_against_itself() -> None:
    gold = SHARED / "data" / "gap" / "gap-development.tsv"
    result = run_cli("evaluate", "--task", "gap", "--gold", str(gold), "--pred", str(gold),
                     "--json")
    assert result.returncode == 0, result.stderr
    import json

    data = json.loads(result.stdout)
    assert data["f1"] == 1.0 and data["n"] == 2000
    for key in ("precision", "recall", "f1_masculine", "f1_feminine", "bias"):
        assert key in data


def test_a_limited_run_is_scored_over_the_rows_it_ran(gold: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``run --limit 2`` answers m1 and m2 only: "first" (A) is right on m1, wrong on m2, so
    A is 1 TP + 1 FP, B is 1 TN + 1 FN: precision = recall = F1 = 0.5. Scoring every other
    gold row as a false negative (the official scorer on a whole file) gave 0.2; ``evaluate``
    of the same run folder gives what ``run`` gave."""
    import json

    from tests.conftest import cli_ok

    out = tmp_path / "run"
    ran = json.loads(cli_ok(capsys, "run", "--model", "first", "--data", gold, "--limit", 2,
                            "--out", out, "--no-store", "--json", "--quiet").splitlines()[-1])
    assert (ran["precision"], ran["recall"], ran["f1"]) == (0.5, 0.5, 0.5)
    again = json.loads(cli_ok(capsys, "evaluate", "--task", "gap", "--gold", gold, "--pred",
                              out, "--json").splitlines()[-1])
    assert again["f1"] == ran["f1"] and again["n"] == 2
