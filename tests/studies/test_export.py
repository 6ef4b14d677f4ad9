"""Exports: CSV / JSON, and native files that round-trip into refbench run / evaluate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refbench.core.errors import OutputError, UsageError
from refbench.studies.export import export
from refbench.studies.report import csv_agreement, study_agreement
from refbench.tasks.choices import read_choices
from refbench.tasks.kitmus.study import create_kitmus_study
from refbench.tasks.tne.read import read_tne
from tests.conftest import run_cli
from tests.studies.conftest import TNE_TINY, answer_everything, client


def cli_json(*args: str) -> dict:  # type: ignore[type-arg]
    r = run_cli(*args)
    assert r.returncode == 0, r.stderr
    out: dict = json.loads(r.stdout)  # type: ignore[type-arg]
    return out


def test_kitmus_native_scores_people_like_systems(tmp_path: Path, kitmus_study: Path) -> None:
    answer_everything(kitmus_study, client(kitmus_study), agree_with_gold=0.6)
    report = study_agreement(kitmus_study)
    _, files = export(kitmus_study, "native", tmp_path / "native")
    names = sorted(str(f.relative_to(tmp_path / "native")) for f in files)
    assert "with-knowledge/gold.jsonl" in names and "gold-checks/ann1.jsonl" in names
    # Without the knowledge text, the gold is the suite's task-text-only view: what people saw.
    assert "without-knowledge/gold.v4_gold_conll" in names
    from refbench.studyfile.db import StudyStore

    with StudyStore(kitmus_study) as st:
        shown = {it.payload["text"] for it in st.items() if it.condition == "without-knowledge"}
    assert {i.context for i in read_choices(tmp_path / "native" / "without-knowledge" /
                                            "gold.v4_gold_conll")} == shown
    for cond, ext in (("with-knowledge", "jsonl"), ("without-knowledge", "v4_gold_conll")):
        gold = tmp_path / "native" / cond / f"gold.{ext}"
        per = report["by_condition"][cond]["per_annotator"]
        for ann in ("ann1", "ann2", "ann3"):
            res = cli_json("evaluate", "--task", "kitmus", "--gold", str(gold), "--pred",
                           str(tmp_path / "native" / cond / f"{ann}.jsonl"), "--json")
            assert res["n"] == 4 and res["n_missing"] == 0
            # "can't say" is no decision for the scorer and wrong for the study: same accuracy.
            assert res["pronoun_accuracy"] == pytest.approx(per[ann])
        run = cli_json("run", "--model", "first", "--data", str(gold), "--out",
                       str(tmp_path / f"run-{cond}"), "--no-store", "--json", "--quiet")
        assert run["n"] == 4
    with pytest.raises(OutputError):
        export(kitmus_study, "native", tmp_path / "native")


def test_kitmus_native_from_conll_source(tmp_path: Path, suite: Path) -> None:
    src = suite / "background-both" / "subtask_3_ents" / "full-text" / "test.v4_gold_conll"
    study = tmp_path / "k.sqlite"
    create_kitmus_study(src, study, n=4, conditions=["with-knowledge", "without-knowledge"],
                        gold_checks=0, annotators=["a", "b"], seed=0, progress=False)
    answer_everything(study, client(study))
    export(study, "native", tmp_path / "out")
    gold = tmp_path / "out" / "without-knowledge" / "gold.v4_gold_conll"
    assert len(list(read_choices(gold))) == 2
    res = cli_json("evaluate", "--task", "kitmus", "--gold", str(gold), "--pred",
                   str(tmp_path / "out" / "without-knowledge" / "majority.jsonl"), "--json")
    assert res["pronoun_accuracy"] == 1.0 and res["n"] == 2


def test_kitmus_without_knowledge_cut_from_a_lone_full_text_file(tmp_path: Path,
                                                                   suite: Path) -> None:
    """A full-text CoNLL file with no task-text-only file beside it (most of the official
    release): the without-knowledge gold is cut to its task text by structure, so a model run on
    the export never sees the knowledge text."""
    import shutil

    full = suite / "background-both" / "subtask_3_ents" / "full-text" / "test.v4_gold_conll"
    lone = tmp_path / "lone" / "test.v4_gold_conll"
    lone.parent.mkdir()
    shutil.copy(full, lone)
    study = tmp_path / "k.sqlite"
    create_kitmus_study(lone, study, n=4, conditions=["without-knowledge"], gold_checks=0,
                        annotators=["a"], seed=0, progress=False)
    answer_everything(study, client(study))
    export(study, "native", tmp_path / "out")
    gold = tmp_path / "out" / "without-knowledge" / "gold.v4_gold_conll"
    from refbench.studyfile.db import StudyStore

    with StudyStore(study) as st:
        shown = {it.payload["text"] for it in st.items()}
    assert {i.context for i in read_choices(gold)} == shown
    assert all(" is a" not in i.context.split(".")[0] for i in read_choices(gold))


def test_altentities_native_runs(tmp_path: Path, ae_study: Path) -> None:
    answer_everything(ae_study, client(ae_study))
    _, files = export(ae_study, "native", tmp_path / "ae")
    assert files == [tmp_path / "ae" / "altentities.json"]
    questions = json.loads(files[0].read_text())
    assert len(questions) == 4 and all(len(q["expressions"]) == 6 for q in questions)
    assert all(set(q["choices"][0]) >= {"name", "description", "infobox", "unshown_background"}
               for q in questions)
    instances = list(read_choices(files[0]))
    assert len(instances) == 24
    for q in questions:
        assert q["choices"][q["target_index"]]["wikipedia_url"] == q["target"]
    run = cli_json("run", "--model", "first", "--data", str(files[0]), "--out",
                   str(tmp_path / "run"), "--no-store", "--json", "--quiet")
    assert run["n"] == 24 and run["task"] == "altentities"


def test_tne_native_equals_gold_when_people_agree_with_it(tmp_path: Path,
                                                         tne_study: Path) -> None:
    answer_everything(tne_study, client(tne_study))
    _, files = export(tne_study, "native", tmp_path / "tne")
    assert [f.name for f in files] == ["ann1.jsonl", "ann2.jsonl"]
    gold = {d.id: d for d in read_tne(TNE_TINY)}
    for doc in read_tne(files[0]):
        g = gold[doc.id]
        assert doc.relations == g.relations
        assert sorted(sorted(m) for _, m, _ in doc.clusters) == \
            sorted(sorted(m) for _, m, _ in g.clusters)
        assert sorted(t for _, _, t in doc.clusters) == sorted(t for _, _, t in g.clusters)
    res = cli_json("evaluate", "--task", "tne", "--gold", str(TNE_TINY), "--pred",
                   str(files[0]), "--json")
    assert res["labeled_f1"] == 1.0 and res["unlabeled_f1"] == 1.0
    r = run_cli("tne", "baseline", "all", "--data", str(files[1]), "--out",
                str(tmp_path / "b.jsonl"))
    assert r.returncode == 0, r.stderr
    t = study_agreement(tne_study)["tne"]
    assert t["completed"] == {"ann1": 2, "ann2": 2}
    for fig in (t["pairs"][0], *t["against_gold"].values()):
        for key in ("muc_f1", "b3_f1", "ceafe_f1", "conll_f1", "labeled_f1", "unlabeled_f1",
                    "iprep_accuracy"):
            assert fig[key] == pytest.approx(1.0), key


def test_csv_round_trips_into_agreement(tmp_path: Path, kitmus_study: Path) -> None:
    answer_everything(kitmus_study, client(kitmus_study), agree_with_gold=0.5, seed=4)
    export(kitmus_study, "csv", tmp_path / "answers.csv")
    text = (tmp_path / "answers.csv").read_text()
    again, _ = export(kitmus_study, "csv", None)
    assert again == text  # deterministic
    from_study = study_agreement(kitmus_study)
    from_csv = csv_agreement(tmp_path / "answers.csv")
    for key in ("overall", "by_condition", "items", "gold_checks"):
        if key == "by_condition":
            for cond, figs in from_csv[key].items():
                for k, v in figs.items():
                    assert from_study[key][cond][k] == v, (cond, k)
        else:
            assert from_study[key] == from_csv[key], key
    # A plain three-column CSV works too.
    plain = tmp_path / "plain.csv"
    plain.write_text("item,annotator,label\ni1,a,X\ni1,b,X\ni2,a,Y\ni2,b,X\n")
    out = csv_agreement(plain)
    assert out["overall"]["fleiss_kappa"] == pytest.approx(-1 / 3)
    r = run_cli("study", "agreement", str(plain), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["overall"]["n_items"] == 2
    dup = tmp_path / "dup.csv"
    dup.write_text("item,annotator,label\ni1,a,X\ni1,a,Y\n")
    r = run_cli("study", "agreement", str(dup))
    assert r.returncode == 2 and "dup.csv:3" in r.stderr


def test_json_export_has_no_tokens(tmp_path: Path, kitmus_study: Path) -> None:
    answer_everything(kitmus_study, client(kitmus_study))
    text, _ = export(kitmus_study, "json", None)
    assert text is not None
    from refbench.studyfile.db import StudyStore

    with StudyStore(kitmus_study) as st:
        for a in st.annotators(role=None):
            assert a.token not in text
    data = json.loads(text)
    assert len(data["answers"]) == 30 and data["study"]["kind"] == "kitmus-validation"
    with pytest.raises(UsageError):
        export(kitmus_study, "xml", None)
    with pytest.raises(UsageError):
        export(kitmus_study, "native", None)
