"""Creating studies: stratified, condition-balanced selection, seeded orders, tokens, errors."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from refbench.core.errors import OutputError, RefbenchError, UsageError
from refbench.studyfile.create import annotator_names, assign
from refbench.studyfile.db import StudyStore
from refbench.tasks.kitmus.study import create_kitmus_study, load_instances, split_knowledge
from refbench.tasks.tne.annotation.study import create_tne_study
from tests.conftest import run_cli
from tests.studies.conftest import ENTITIES, TNE_TINY, make_suite


def snapshot(path: Path) -> tuple[object, ...]:
    with StudyStore(path) as st:
        items = [(it.id, it.payload, it.gold, it.condition, it.gold_check) for it in st.items()]
        orders = [st.assignments(a.id) for a in st.annotators()]
        names = [a.name for a in st.annotators()]
    return items, orders, names


def test_kitmus_selection_is_stratified_balanced_and_flags_gold_checks(kitmus_study: Path
                                                                       ) -> None:
    with StudyStore(kitmus_study) as st:
        items = st.items()
        meta = st.meta()
    main = [it for it in items if not it.gold_check]
    checks = [it for it in items if it.gold_check]
    assert len(main) == 8 and len(checks) == 2
    # 4 subtasks x 2 instances each, one per condition in every subtask.
    groups = Counter((it.payload["variant"], it.payload["n_entities"]) for it in main)
    assert sorted(groups.values()) == [2, 2, 2, 2]
    for key in groups:
        conds = sorted(it.condition for it in main
                       if (it.payload["variant"], it.payload["n_entities"]) == key)
        assert conds == ["with-knowledge", "without-knowledge"]
    # Gold checks come from background-both (background knowledge written out), with knowledge.
    assert {it.payload["variant"] for it in checks} == {"background-both"}
    assert {it.condition for it in checks} == {"with-knowledge"}
    assert not {it.id for it in checks} & {it.id for it in main}
    assert meta["kind"] == "kitmus-validation" and meta["gold_checks"] == 2
    for it in items:
        p = it.payload
        assert p["text"][p["pronoun_offset"]:].startswith(p["pronoun"])
        assert it.gold == p["candidates"][p["answer"]]
        assert p["knowledge"]
        # Records people saw: the native line, or (without knowledge) the task-text-only view.
        want = "#begin document" if it.condition == "without-knowledge" else "{"
        assert p["record"].startswith(want)


def test_same_seed_same_study_other_seed_other_order(tmp_path: Path, suite: Path) -> None:
    def make(name: str, seed: int) -> Path:
        out = tmp_path / name
        create_kitmus_study(suite, out, n=6, conditions=["with-knowledge", "without-knowledge"],
                            gold_checks=1, annotators=["ann1", "ann2"], seed=seed,
                            progress=False)
        return out

    a, b, c = make("a.sqlite", 5), make("b.sqlite", 5), make("c.sqlite", 6)
    assert snapshot(a) == snapshot(b)
    assert snapshot(a) != snapshot(c)
    with StudyStore(a) as st:
        orders = [st.assignments(x.id) for x in st.annotators()]
        tokens = [x.token for x in st.annotators(role=None)]
    # Each annotator has their own item order and option order (seeded per annotator).
    assert [i for _, i, _ in orders[0]] != [i for _, i, _ in orders[1]] or \
        [o for _, _, o in orders[0]] != [o for _, _, o in orders[1]]
    assert all(sorted(o) == list(range(len(o))) for _, _, o in orders[0])
    # Tokens: distinct, URL-safe, 192 bits (32 characters), never the same across studies.
    with StudyStore(b) as st:
        other = {x.token for x in st.annotators(role=None)}
    assert len(set(tokens)) == len(tokens) == 3 and not set(tokens) & other
    assert all(len(t) == 32 and t.replace("-", "").replace("_", "").isalnum() for t in tokens)


def test_small_n_spreads_over_every_variant_and_warns(tmp_path: Path) -> None:
    """Issue 22: ``--n 12`` over 24 subtasks drew only the first variants in name order. Now
    an ``n`` below the number of subtasks covers every variant and entity count evenly, each
    subtask at most once, conditions balanced, and the CLI says that some subtasks get none."""
    suite = make_suite(tmp_path / "suite", variants=["background-pretrain", "background-both",
                                                     "background-inference-real-charfict"],
                       entities=[2, 3], size=4, formats=["jsonl"])

    def make(name: str, n: int, seed: int = 2) -> Path:
        out = tmp_path / name
        created = create_kitmus_study(suite, out, n=n, conditions=["with-knowledge",
                                                                   "without-knowledge"],
                                      gold_checks=0, annotators=["a"], seed=seed,
                                      progress=False)
        assert bool(created.warnings) == (n < 6)
        return out

    small = make("small.sqlite", 4)
    with StudyStore(small) as st:
        items = st.items()
    keys = [(it.payload["variant"], it.payload["n_entities"]) for it in items]
    assert len(set(keys)) == 4  # no subtask twice before every subtask once
    assert {v for v, _ in keys} == {"background-pretrain", "background-both",
                                    "background-inference-real-charfict"}
    assert sorted(Counter(n for _, n in keys).values()) == [2, 2]
    assert Counter(it.condition for it in items) == {"with-knowledge": 2,
                                                      "without-knowledge": 2}
    assert snapshot(small) == snapshot(make("again.sqlite", 4))  # deterministic for a seed
    full = make("full.sqlite", 12)  # two rounds: every subtask twice, once per condition
    with StudyStore(full) as st:
        items = st.items()
    per = Counter((it.payload["variant"], it.payload["n_entities"], it.condition)
                  for it in items)
    assert len(per) == 12 and set(per.values()) == {1}
    r = run_cli("study", "create", "kitmus-validation", "--data", str(suite), "--n", "3",
                "--gold-checks", "0", "--out", str(tmp_path / "cli.sqlite"), "--json")
    assert r.returncode == 0, r.stderr
    assert "WARNING: --n 3 is smaller than the 6 subtasks" in r.stderr
    assert '"subtasks_in_data": 6' in r.stdout and '"warnings"' in r.stdout


def test_assignment_overlap() -> None:
    per = assign(10, 4, 2)
    counts = Counter(k for items in per for k in items)
    assert set(counts.values()) == {2} and len(counts) == 10
    assert sorted(len(x) for x in per) == [5, 5, 5, 5]
    assert assign(3, 2, None) == [[0, 1, 2], [0, 1, 2]]
    with pytest.raises(UsageError):
        assign(3, 2, 3)


def test_annotator_names() -> None:
    assert annotator_names("3") == ["ann1", "ann2", "ann3"]
    assert annotator_names("alice, bob") == ["alice", "bob"]
    for bad in ("0", "a,a", "x y", ""):
        with pytest.raises(UsageError):
            annotator_names(bad)


def test_refuses_to_overwrite_and_leaves_no_partial_file(tmp_path: Path, suite: Path) -> None:
    out = tmp_path / "k.sqlite"
    create_kitmus_study(suite, out, n=2, conditions=["with-knowledge"], gold_checks=0,
                        annotators=["a"], seed=0, progress=False)
    with pytest.raises(OutputError):
        create_kitmus_study(suite, out, n=2, conditions=["with-knowledge"], gold_checks=0,
                            annotators=["a"], seed=0, progress=False)
    with pytest.raises(UsageError):
        create_kitmus_study(suite, tmp_path / "big.sqlite", n=1000, conditions=[
            "with-knowledge"], gold_checks=0, annotators=["a"], seed=0, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.sqlite"]


def test_without_knowledge_needs_a_knowledge_text(tmp_path: Path, suite: Path) -> None:
    task_only = suite / "background-pretrain" / "subtask_2_ents" / "task-text-only" / \
        "test.v4_gold_conll"
    with pytest.raises(UsageError, match="no knowledge text"):
        create_kitmus_study(task_only, tmp_path / "k.sqlite", n=2,
                            conditions=["without-knowledge"], gold_checks=0, annotators=["a"],
                            seed=0, progress=False)


def test_knowledge_split_matches_the_task_text_view(suite: Path) -> None:
    sub = suite / "background-pretrain" / "subtask_3_ents"
    full = load_instances(sub / "full-text" / "test.v4_gold_conll", progress=False)
    native = {i.id: i for i, _ in load_instances(sub / "test.jsonl", progress=False)}
    import json

    texts = {json.loads(line)["id"]: json.loads(line)
             for line in (sub / "test.jsonl").read_text().splitlines()}
    assert len(full) == len(native) == 10
    for inst, _ in full:
        knowledge, task, start = split_knowledge(inst)
        ref = texts[inst.id.replace("/full-text/", "/")]
        assert task == ref["task_text"] and knowledge == ref["knowledge_text"]
        assert inst.context[start:] == task


def test_cli_create_errors_are_one_line(tmp_path: Path, suite: Path) -> None:
    r = run_cli("study", "create", "kitmus-validation", "--data", str(tmp_path / "nope.jsonl"),
                "--out", str(tmp_path / "k.sqlite"))
    assert r.returncode == 2 and r.stderr.startswith("error E400:") and "Traceback" not in r.stderr
    r = run_cli("study", "create", "kitmus-validation", "--data", str(suite), "--conditions",
                "with-knowledge,sideways", "--out", str(tmp_path / "k.sqlite"))
    assert r.returncode == 2 and "unknown condition" in r.stderr
    r = run_cli("study", "create", "kitmus-validation", "--data", str(suite), "--n", "4",
                "--gold-checks", "1", "--annotators", "2", "--out", str(tmp_path / "k.sqlite"),
                "--json")
    assert r.returncode == 0, r.stderr
    assert '"items": 5' in r.stdout
    r = run_cli("study", "agreement", str(ENTITIES))
    assert r.returncode == 2 and "error E400" in r.stderr
    (tmp_path / "junk.sqlite").write_bytes(b"not sqlite at all" * 100)
    r = run_cli("study", "agreement", str(tmp_path / "junk.sqlite"))
    assert r.returncode == 2 and "not a refbench study file" in r.stderr


def test_tne_study_from_file_keeps_its_nps_and_gold(tmp_path: Path) -> None:
    out = tmp_path / "t.sqlite"
    create_tne_study(TNE_TINY, out, n=5, annotators=["a", "b"], seed=0)
    with StudyStore(out) as st:
        items = st.items()
        orders = [st.assignments(a.id) for a in st.annotators()]
    assert [it.id for it in items] == ["t1", "t2"]
    assert items[0].payload["gold"]["coref"][3]["members"] == ["np3", "np5"]
    assert [i for _, i, _ in orders[0]] == ["t1", "t2"]  # documents keep their order


def test_study_file_is_wal_and_enforces_assignments(kitmus_study: Path) -> None:
    assert kitmus_study.stat().st_mode & 0o777 == 0o600  # tokens inside: owner only
    with StudyStore(kitmus_study) as st:
        assert st.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        a1 = st.annotators()[0]
        some = st.assignments(a1.id)[0][1]
        st.save_answer(a1.id, some, "", {"choice": 0})
        with pytest.raises(sqlite3.IntegrityError):
            st.save_answer(a1.id, "not-an-item", "", {"choice": 0})
        assert st.save_answer(a1.id, some, "", {"choice": 1}) == 2
        assert st.log_size() == 2


def test_not_a_study(tmp_path: Path) -> None:
    with pytest.raises(RefbenchError, match="not found"):
        StudyStore(tmp_path / "missing.sqlite")
