"""KITMUS scoring on hand-worked cases, every prediction format, runs, suites, and real data."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.tasks.kitmus.generate.resources import load_resources
from refbench.tasks.kitmus.generate.suite import generate_suite, make_config
from refbench.tasks.kitmus.score.evaluate import evaluate_files
from refbench.tasks.kitmus.score.suite_eval import evaluate_suite
from tests.conftest import OFFICIAL, needs_shared, run_cli
from tests.tasks.kitmus.score import scoring_fixtures as fx

RELEASED = OFFICIAL / "released" / "background-train" / "subtask_2_ents"
PREDS = OFFICIAL / "predictions"


@pytest.fixture
def gold(tmp_path: Path) -> Path:
    return fx.write_gold(tmp_path / "gold.v4_gold_conll")


def test_hand_worked_metrics(gold: Path, tmp_path: Path) -> None:
    r = evaluate_files(gold, [fx.write_jsonlines_preds(tmp_path / "p.jsonlines")], bootstrap=0)
    for key, value in fx.EXPECTED.items():
        assert r[key] == pytest.approx(value), key
    assert r["decisions"] == {"multiple": 1, "none": 2, "incorrect": 1, "correct": 1}
    assert r["counts"] == {"tp": 2, "fp": 2, "fn": 3, "tn": 5}
    assert r["random_baseline"]["pronoun_accuracy"] == pytest.approx(13 / 30)
    assert r["missing_ids"] == [fx.doc_id("E")]
    assert r["kitmus_slices"]["answer_position"]["0"]["pronoun_accuracy"] == 0.5
    assert r["kitmus_slices"]["answer_position"]["1"]["pronoun_accuracy"] == 0.0
    assert r["kitmus_slices"]["entities"]["3"]["n"] == 2
    assert r["kitmus_slices"]["pronoun"]["she"]["n"] == 5
    assert r["variant"] == "background-both" and r["n_entities"] is None
    assert any("no prediction" in w for w in r["warnings"])


def test_answers_by_index_and_by_name_agree(gold: Path, tmp_path: Path) -> None:
    by_index = evaluate_files(gold, [fx.write_answers(tmp_path / "i.jsonl")], bootstrap=0)
    by_name = evaluate_files(gold, [fx.write_answers(tmp_path / "n.jsonl", by_name=True)],
                             bootstrap=0)
    # One answer per instance: A right, B wrong, C answers Eads (wrong), D none, E missing.
    assert by_index["pronoun_accuracy"] == by_name["pronoun_accuracy"] == 0.2
    assert by_index["decisions"] == {"multiple": 0, "none": 2, "incorrect": 2, "correct": 1}


def test_predicted_clusters_win_and_gold_lookalikes_are_flagged(gold: Path,
                                                                tmp_path: Path) -> None:
    p = fx.write_jsonlines_preds(tmp_path / "p.jsonlines", with_gold_clusters=True)
    r = evaluate_files(gold, [p], bootstrap=0)
    assert r["pronoun_accuracy"] == 0.2
    assert any("look like gold clusters" in w for w in r["warnings"])


def test_conll_predictions_and_gold_against_itself(gold: Path) -> None:
    r = evaluate_files(gold, [gold], bootstrap=0)
    assert r["pronoun_accuracy"] == 1.0 and r["antecedent_f1"] == 1.0


def test_gap_three_and_nine_column_predictions(tmp_path: Path) -> None:
    from refbench.tasks.kitmus.convert import convert

    g2 = tmp_path / "g2.v4_gold_conll"
    with g2.open("w") as fh:
        for key in ("A", "B", "E"):
            sents, clusters = fx.sentences(key)
            fh.write(fx.format_conll(fx.doc_id(key), sents, clusters))
    tsv = tmp_path / "g2.tsv"
    convert(g2, tsv)
    three = tmp_path / "sys.tsv"  # A right, B wrong (says A), E missing
    three.write_text(f"{fx.doc_id('A')}\tTRUE\tFALSE\n{fx.doc_id('B')}\tTRUE\tFALSE\n")
    r = evaluate_files(g2, [three], bootstrap=0)
    assert (r["pronoun_accuracy"], r["n_missing"]) == (pytest.approx(1 / 3), 1)
    # The 9-column file (offsets, no Text) of the KITMUS predictions release.
    rows = [line.split("\t") for line in tsv.read_text().splitlines()]
    nine = tmp_path / "nine.tsv"
    header = "ID\tPronoun\tPronoun-offset\tA\tA-offset\tB\tB-offset\tA-coref\tB-coref\n"
    body = "".join(f"{r[0]}\t{r[2]}\t{r[3]}\t{r[4]}\t{r[5]}\t{r[7]}\t{r[8]}\t{r[6]}\t{r[9]}\n"
                   for r in rows[1:])
    nine.write_text(header + body)
    assert evaluate_files(g2, [nine], bootstrap=0)["pronoun_accuracy"] == 1.0
    # Gold as GAP TSV works with GAP predictions and answers, not with cluster predictions.
    assert evaluate_files(tsv, [nine], bootstrap=0)["antecedent_f1"] == 1.0


def test_tokenisation_mismatch_is_an_error(gold: Path, tmp_path: Path) -> None:
    p = fx.write_jsonlines_preds(tmp_path / "p.jsonlines")
    lines = p.read_text().splitlines()
    obj = json.loads(lines[0])
    obj["sentences"][0][0] = "Aldo-"
    lines[0] = json.dumps(obj)
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(RefbenchError) as info:
        evaluate_files(gold, [p], bootstrap=0)
    assert "tokenised differently" in info.value.message
    assert info.value.item == fx.doc_id("A") and info.value.path == f"{p}:1"


def test_bad_answer_is_reported(gold: Path, tmp_path: Path) -> None:
    p = tmp_path / "a.jsonl"
    p.write_text(json.dumps({"id": fx.doc_id("A"), "answer": 7}) + "\n")
    with pytest.raises(RefbenchError) as info:
        evaluate_files(gold, [p], bootstrap=0)
    assert "answer 7 is not a candidate index" in info.value.message


def test_bootstrap_is_seeded_and_brackets_the_estimate(gold: Path, tmp_path: Path) -> None:
    p = fx.write_jsonlines_preds(tmp_path / "p.jsonlines")
    a = evaluate_files(gold, [p], bootstrap=500, seed=3)["ci95"]
    b = evaluate_files(gold, [p], bootstrap=500, seed=3)["ci95"]
    c = evaluate_files(gold, [p], bootstrap=500, seed=4)["ci95"]
    assert a == b and a != c
    lo, hi = a["pronoun_accuracy"]
    assert 0.0 <= lo <= 0.2 <= hi <= 1.0


def test_several_runs_give_mean_and_sample_std(gold: Path, tmp_path: Path) -> None:
    bad = fx.write_jsonlines_preds(tmp_path / "bad.jsonlines")  # accuracy 0.2
    good = tmp_path / "good.jsonl"  # A, B, C right -> 0.6
    good.write_text("".join(json.dumps({"id": fx.doc_id(k), "answer": fx.DOCS[k][1]}) + "\n"
                            for k in ("A", "B", "C")))
    r = evaluate_files(gold, [bad, good], bootstrap=0)
    assert r["n_runs"] == 2
    assert r["pronoun_accuracy"] == pytest.approx(0.4)
    assert r["pronoun_accuracy_std"] == pytest.approx(math.sqrt(0.08))
    assert len(r["runs"]) == 2


def test_suite_mode_table(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    cfg = make_config(variants=["background-pretrain", "background-both"], entities=[2, 3],
                      splits=["test"], sizes={"test": 6}, formats=["jsonl", "conll"])
    generate_suite(load_resources(), suite, cfg, progress=False)
    system = tmp_path / "first"  # always answers candidate 0, two runs for one subtask
    for variant in ("background-pretrain", "background-both"):
        for n in (2, 3):
            gold = suite / variant / f"subtask_{n}_ents" / "test.jsonl"
            ids = [json.loads(line)["id"] for line in gold.read_text().splitlines()]
            out = system / f"run1.{variant}.subtask_{n}_ents.test.jsonl"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text("".join(json.dumps({"id": i, "answer": 0}) + "\n" for i in ids))
    shutil.copy(system / "run1.background-both.subtask_2_ents.test.jsonl",
                system / "run2.background-both.subtask_2_ents.test.jsonl")
    r = evaluate_suite(suite, [system], bootstrap=0)
    assert len(r["cells"]) == 4
    cell = next(c for c in r["cells"] if c["variant"] == "background-both"
                and c["n_entities"] == 2)
    assert cell["n_runs"] == 2 and cell["pronoun_accuracy_std"] == 0.0
    assert r["random_baseline"]["background-pretrain|3"] == pytest.approx(1 / 3)
    # Variants are paired and the system ignores the text: same accuracy in both variants.
    accs = {(c["variant"], c["n_entities"]): c["pronoun_accuracy"] for c in r["cells"]}
    assert accs[("background-both", 3)] == accs[("background-pretrain", 3)]
    result = run_cli("evaluate", "--task", "kitmus", "--gold", str(suite), "--pred",
                     str(system), "--bootstrap", "0")
    assert result.returncode == 0, result.stderr
    assert "| chance (random baseline) | 0.500 | 0.333 |" in result.stdout
    assert "| background-both | " in result.stdout and "| Variant | 2 ent. | 3 ent. |" in \
        result.stdout


@needs_shared(RELEASED)
def test_equals_the_official_evaluator_c2f_and_grep() -> None:
    gold = RELEASED / "full-text" / "test.v4_gold_conll.gz"
    c2f_file = PREDS / "c2f-run1.background-train.subtask_2_ents.test.jsonlines.gz"
    c2f = evaluate_files(gold, [c2f_file], bootstrap=0)
    assert (f"{c2f['antecedent_f1']:.3f}", f"{c2f['antecedent_precision']:.3f}",
            f"{c2f['antecedent_recall']:.3f}", f"{c2f['pronoun_accuracy']:.3f}") == (
        "0.501", "0.500", "0.501", "0.499")
    grep = evaluate_files(gold, [PREDS / "grep-run1.background-train.subtask_2_ents.test.tsv"],
                          bootstrap=0)
    assert (f"{grep['antecedent_f1']:.3f}", f"{grep['pronoun_accuracy']:.3f}") == (
        "0.485", "0.485")
    assert c2f["variant"] == "background-pretrain" and c2f["n_entities"] == 2
    # The same figures against the GAP TSV gold and the task-text-only gold (GREP only has
    # full-text offsets, so it is scored on full-text gold).
    tsv_gold = evaluate_files(RELEASED / "full-text" / "test.tsv.gz",
                              [PREDS / "grep-run1.background-train.subtask_2_ents.test.tsv"],
                              bootstrap=0)
    assert f"{tsv_gold['pronoun_accuracy']:.3f}" == "0.485"


@needs_shared(RELEASED)
def test_cli_json_keys_and_provenance(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = run_cli("evaluate", "--task", "kitmus", "--gold",
                     str(RELEASED / "full-text" / "test.v4_gold_conll.gz"), "--pred",
                     str(PREDS / "c2f-run1.background-train.subtask_2_ents.test.jsonlines.gz"),
                     "--json", "--out", str(out), "--bootstrap", "100")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for key in ("antecedent_f1", "antecedent_precision", "antecedent_recall",
                "pronoun_accuracy", "n", "n_missing"):
        assert key in data
    saved = json.loads(out.read_text())
    prov = saved["provenance"]
    assert prov["refbench_version"] and len(prov["inputs"]["gold"][0]["sha256"]) == 64
    assert prov["command"].startswith("refbench evaluate")


def test_cli_bad_input(tmp_path: Path, gold: Path) -> None:
    bad = tmp_path / "bad.v4_gold_conll"
    bad.write_text(gold.read_text().replace(" (1)\n", " (1\n", 1))
    r = run_cli("evaluate", "--task", "kitmus", "--gold", str(bad), "--pred", str(gold))
    assert r.returncode == 2 and "unbalanced coreference brackets" in r.stderr
    assert str(bad) in r.stderr
    r = run_cli("evaluate", "--task", "kitmuss", "--gold", str(gold), "--pred", str(gold))
    assert r.returncode == 2 and "Did you mean kitmus" in r.stderr


def test_coref_output_run_scores_like_evaluate(gold: Path, tmp_path: Path) -> None:
    """One scorer, one number: a coreference output run as a model keeps its several / none
    linked decisions, so run's metrics and evaluate on run's predictions equal evaluate on the
    system's own file (hand-worked: F1 4/9, accuracy 1/5)."""
    from refbench.runs.runner import run_model

    system = fx.write_jsonlines_preds(tmp_path / "p.jsonlines")
    direct = evaluate_files(gold, [system], bootstrap=0)
    run = run_model(f"coref-output:{system}", gold, tmp_path / "run", progress=False)
    via_run = evaluate_files(gold, [tmp_path / "run" / "predictions.jsonl"], bootstrap=0)
    for key in ("antecedent_f1", "antecedent_precision", "antecedent_recall",
                "pronoun_accuracy"):
        assert run[key] == direct[key] == via_run[key], key
    assert direct["antecedent_f1"] == pytest.approx(4 / 9)
    assert via_run["decisions"] == direct["decisions"] == {"multiple": 1, "none": 2,
                                                           "incorrect": 1, "correct": 1}


@needs_shared(RELEASED)
def test_coref_output_run_equals_official_c2f(tmp_path: Path) -> None:
    from refbench.runs.runner import run_model

    gold = RELEASED / "full-text" / "test.v4_gold_conll.gz"
    c2f_file = PREDS / "c2f-run1.background-train.subtask_2_ents.test.jsonlines.gz"
    run = run_model(f"coref-output:{c2f_file}", gold, tmp_path / "run", progress=False)
    assert (f"{run['antecedent_f1']:.3f}", f"{run['pronoun_accuracy']:.3f}") == ("0.501",
                                                                                 "0.499")
