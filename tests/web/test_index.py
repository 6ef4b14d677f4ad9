"""The index, its queries and the records it is built from."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from refbench.tasks.lookup import get_task
from refbench.tasks.page import segment
from refbench.web.datasets import discover, open_dataset, suite_files
from refbench.web.index import IndexFolder, build_index, count, item, unpack
from refbench.web.query import BadQuery, Lister, ListQuery
from refbench.web.records import Problem, Record, file_records
from tests.conftest import OFFICIAL, needs_shared
from tests.web.conftest import FILES, SUITE


def _index(tmp_path: Path, path: Path) -> sqlite3.Connection:
    ds = open_dataset(path)
    target = tmp_path / f"{ds.key}.sqlite"
    build_index(ds, target, progress=False)
    return sqlite3.connect(target)


def test_native_records_order_candidates_as_read_choices_does() -> None:
    """The candidate order (what a run's answer index means) must be the runner's."""
    from refbench.tasks.choices import read_choices
    from refbench.tasks.kitmus.native import read_native, to_choice

    for f in [FILES["kitmus"], *suite_files(SUITE)]:
        recs = list(file_records("kitmus-native", get_task("kitmus"), f))
        choices = list(read_choices(f))
        natives = [to_choice(i) for i in read_native(f)]
        assert len(recs) == len(choices) == len(natives)
        for rec, ch, nat in zip(recs, choices, natives, strict=True):
            names = [c["text"] for c in rec.payload["candidates"]]
            assert names == [c.text for c in ch.candidates] == [c.text for c in nat.candidates]
            assert rec.gold == ch.gold == nat.gold
            assert rec.payload["text"] == ch.context
            pron = [m for m in rec.payload["marks"] if m[2] == "pronoun"]
            assert len(pron) == 1 and rec.payload["text"][pron[0][0]:pron[0][1]] == ch.expression


def test_kitmus_records_mark_every_mention_of_every_entity() -> None:
    rec = next(iter(file_records("kitmus-native", get_task("kitmus"), FILES["kitmus"])))
    text = rec.payload["text"]
    for k, cand in enumerate(rec.payload["candidates"]):
        spans = [m for m in rec.payload["marks"] if m[2] == "mention" and m[3] == k]
        assert len(spans) == 2 and all(text[a:b] == cand["text"] for a, b, _, _ in spans)
    roles = [s["role"] for s in rec.payload["sentences"]]
    assert roles.count("background_knowledge") == 2 and "meet" in roles


@needs_shared(OFFICIAL)
def test_official_conll_records_agree_with_the_gold_reader() -> None:
    from refbench.tasks.choices import read_choices

    f = OFFICIAL / "released" / "background-train" / "subtask_3_ents" / "full-text" / \
        "test.v4_gold_conll.gz"
    every = list(file_records("kitmus-conll", get_task("kitmus"), f))
    recs = [r for r in every if isinstance(r, Record)]
    assert not [r for r in every if isinstance(r, Problem)]  # "He" as a surname reads too
    choices = list(read_choices(f))
    assert len(recs) == len(choices) == 2000
    for rec, ch in zip(recs, choices, strict=True):
        assert [c["text"] for c in rec.payload["candidates"]] == [c.text for c in ch.candidates]
        assert rec.gold == ch.gold
        roles = [s["role"] for s in rec.payload["sentences"]]
        assert roles.count("meet") == 1 and roles.count("pronoun") == 1
        assert roles.count("entity_knowledge") == 3
        marked = {m[3] for m in rec.payload["marks"] if m[2] == "mention"}
        assert marked == {0, 1, 2}
        # The searchable fields: the task text (also the preview) and the knowledge text.
        text = rec.payload["text"]
        parts = {p: " ".join(text[s["start"]:s["end"]] for s in rec.payload["sentences"]
                             if (s["part"] == "task") == (p == "task"))
                 for p in ("task", "knowledge")}
        assert rec.fields == parts and rec.fields["task"] == rec.title
        assert all(parts.values()) and ch.expression in rec.fields["task"]


def test_search_filters_and_keyset_pages(tmp_path: Path) -> None:
    db = _index(tmp_path, SUITE)
    assert count(db) == 20
    lister = Lister(db, ListQuery(facets={"split": "train"}))
    assert lister.count() == 8
    seen: list[int] = []
    rows, before, after = lister.page(size=3)
    assert not before and after
    while True:
        seen += [r["n"] for r in rows]
        if not after:
            break
        rows, before, after = lister.page(after=rows[-1]["cursor"], size=3)
        assert before
    assert seen == sorted(seen) and len(seen) == 8
    back, before, after = lister.page(before=str(seen[6]), size=3)
    assert [r["n"] for r in back] == seen[3:6] and before and after
    assert lister.neighbours(seen[2]) == (seen[1], seen[3])
    assert lister.neighbours(seen[0])[0] is None
    facets = lister.facet_counts(["split", "entities"])
    assert dict(facets["split"]) == {"test": 8, "train": 8, "validation": 4}  # own filter off
    assert dict(facets["entities"]) == {"2": 4, "3": 4}


def test_disagreement_order_and_correctness_filters(tmp_path: Path) -> None:
    db = _index(tmp_path, SUITE)
    answers = {"a": [0] * 20, "b": [0] * 10 + [1] * 10, "c": [n % 2 for n in range(20)]}
    gold = dict(db.execute("SELECT n, gold FROM items").fetchall())
    for sys, ans in answers.items():
        db.executemany("INSERT INTO preds VALUES (?, ?, ?, ?)",
                       [(sys, n, a, int(a == gold[n])) for n, a in enumerate(ans)])
    q = ListQuery(systems=["a", "b", "c"], sort="disagreement")
    rows, _, _ = Lister(db, q).page(size=30)
    expected = {n: sum(answers[x][n] != answers[y][n] for x, y in (("a", "b"), ("a", "c"),
                                                                   ("b", "c")))
                for n in range(20)}
    assert [(r["n"], r["score"]) for r in rows] == sorted(expected.items(),
                                                           key=lambda x: (-x[1], x[0]))
    page1, _, more = Lister(db, q).page(size=7)
    page2, _, _ = Lister(db, q).page(after=page1[-1]["cursor"], size=30)
    assert [r["n"] for r in page1 + page2] == [r["n"] for r in rows] and more
    q = ListQuery(systems=["a", "b"], disagree=True)
    assert Lister(db, q).count() == 10
    q = ListQuery(systems=["a", "b"], correctness={"a": "incorrect"})
    assert Lister(db, q).count() == sum(1 for n in range(20) if gold[n] != 0)


def test_bad_queries_raise(tmp_path: Path) -> None:
    db = _index(tmp_path, SUITE)
    with pytest.raises(BadQuery):
        Lister(db, ListQuery(q='"open', mode="advanced"))
    with pytest.raises(BadQuery):
        ListQuery(facets={"colour": "red"}).validate(["split"])
    with pytest.raises(BadQuery):
        ListQuery(systems=["a"], sort="disagreement").validate([])
    with pytest.raises(BadQuery):
        Lister(db, ListQuery()).page(after="1.2.3")


def test_index_is_reused_and_rebuilt_when_the_data_changes(tmp_path: Path) -> None:
    data = tmp_path / "winograd.jsonl"
    data.write_text(FILES["winograd"].read_text())
    ds = open_dataset(data)
    folder = IndexFolder(tmp_path / "index")
    path = folder.ensure(ds)
    first = path.stat().st_mtime_ns
    assert folder.ensure(ds) == path and path.stat().st_mtime_ns == first
    with data.open("a") as fh:
        fh.write('{"qID": "web-4", "sentence": "Ana thanked Bo because _ helped.", '
                 '"option1": "Ana", "option2": "Bo", "answer": "2"}\n')
    os.utime(data, ns=(first + 10**9, first + 10**9))
    ds = open_dataset(data)
    assert not folder.is_current(ds)
    db = folder.connect(ds)
    assert count(db) == 4 and unpack(db.execute("SELECT payload FROM payloads WHERE n = 3")
                                      .fetchone()[0])["id"] == "web-4"
    assert not list((tmp_path / "index").glob("*.tmp"))


def test_a_rejected_instance_is_a_problem_and_a_failed_build_leaves_no_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from refbench.core.errors import RefbenchError
    from refbench.web.index import problems

    bad = tmp_path / "bad.jsonl"
    bad.write_text(FILES["winograd"].read_text() + '{"qID": "x", "sentence": "no blank"}\n')
    folder = IndexFolder(tmp_path / "index")
    db = folder.connect(open_dataset(bad))
    n, listed = problems(db)
    assert count(db) == len(FILES["winograd"].read_text().splitlines())
    assert n == 1 and "x" in listed[0][1] and listed[0][0] == str(bad)
    db.close()
    import refbench.web.index as index_module

    def fails(*args: object) -> Iterator[object]:  # a reader that gives up half-way
        yield from file_records(*args)  # type: ignore[arg-type]
        raise RefbenchError("unreadable", path=bad)

    monkeypatch.setattr(index_module, "file_records", fails)
    other = IndexFolder(tmp_path / "index2")
    with pytest.raises(RefbenchError, match="unreadable"):
        other.ensure(open_dataset(FILES["winograd"]))
    assert not list((tmp_path / "index2").iterdir())


def test_parallel_build_equals_serial(tmp_path: Path) -> None:
    ds = open_dataset(SUITE)
    build_index(ds, tmp_path / "serial.sqlite", progress=False, workers=1)
    build_index(ds, tmp_path / "parallel.sqlite", progress=False, workers=2)
    rows = []
    for name in ("serial", "parallel"):
        with sqlite3.connect(tmp_path / f"{name}.sqlite") as db:
            rows.append(db.execute("SELECT i.n, iid, gold, title, payload FROM items i "
                                   "JOIN payloads p ON p.n = i.n").fetchall())
    assert rows[0] == rows[1]


def test_discovery_walks_folders_and_reports_what_it_skips(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# not data\n")
    (tmp_path / "table.tsv").write_text("a\tb\n1\t2\n")
    for f in FILES.values():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    found = discover([tmp_path])
    assert sorted(d.task.name for d in found.datasets) == sorted(FILES)
    assert [Path(p).name for p, _ in found.skipped] == ["table.tsv"]
    suite = discover([SUITE]).datasets[0]
    assert suite.kind == "kitmus-suite" and len(suite.files) == 12


def test_item_payload_round_trip(tmp_path: Path) -> None:
    db = _index(tmp_path, FILES["tne"])
    it: dict[str, Any] | None = item(db, 1)
    assert it is not None and it["iid"] == "web-tne-2"
    assert it["payload"]["nps"][2][3] == "The <img src=x onerror=alert(6)> crowd"
    assert item(db, 2) is None


def test_segments_cover_the_text_with_nested_marks() -> None:
    text = "the roof of the old house"
    segs = segment(text, [(0, 8, "A"), (12, 25, "B"), (16, 25, "C")])
    assert "".join(s.text for s in segs) == text
    assert [(s.text, s.marks) for s in segs] == [
        ("the roof", ("A",)), (" of ", ()), ("the ", ("B",)), ("old house", ("B", "C"))]
    assert segs[-1].inner == "C"
    assert [s.text for s in segment(text, [(4, 8, "x")], start=4, end=11)] == ["roof", " of"]
