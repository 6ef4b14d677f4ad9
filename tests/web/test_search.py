"""Search takes word forms and shows where it matched (issue 31, finding 10): the index's FTS5
table stems words (Porter), so "firefighter" finds "firefighters", exact phrases stay exact,
and each result shows an escaped snippet of the passage with the match in ``<mark>``."""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from refbench.web.datasets import open_dataset
from refbench.web.index import IndexFolder, build_index
from refbench.web.query import Lister, ListQuery, segments
from tests.conftest import SHARED, needs_shared
from tests.web.conftest import FILES

TNE_TRAIN = SHARED / "data" / "tne" / "train-reconstructed-v1.1.jsonl.gz"


def _index(tmp_path: Path, path: Path) -> sqlite3.Connection:
    ds = open_dataset(path)
    target = tmp_path / f"{ds.key}.sqlite"
    build_index(ds, target, progress=False)
    return sqlite3.connect(target)


def _search(db: sqlite3.Connection, q: str, mode: str = "plain") -> tuple[int, list[Any]]:
    lister = Lister(db, ListQuery(q=q, mode=mode))
    rows, _, _ = lister.page()
    return lister.count(), rows


def test_a_word_finds_its_other_forms(tmp_path: Path) -> None:
    db = _index(tmp_path, FILES["tne"])
    for typed, found in (("repair", "repairs"), ("cheer", "cheered"), ("closing", "closes"),
                         ("markets", "market")):
        n, rows = _search(db, typed)
        assert n == 1, typed
        marked = [text for text, hit in rows[0]["snippet"] if hit]
        assert found in marked, (typed, rows[0]["snippet"])


def test_phrases_stay_exact(tmp_path: Path) -> None:
    db = _index(tmp_path, FILES["tne"])
    assert _search(db, '"old market"', "advanced")[0] == 1
    assert _search(db, '"market old"', "advanced")[0] == 0
    n, rows = _search(db, '"the old market"', "advanced")
    assert n == 1 and ("the old market", True) in rows[0]["snippet"]


def test_snippet_is_the_passage_around_the_match(tmp_path: Path) -> None:
    db = _index(tmp_path, FILES["tne"])
    _, rows = _search(db, "repairs")
    text = "".join(t for t, _ in rows[0]["snippet"])
    assert "reopen after repairs to its roof" in text
    assert not text.startswith("Storm closes")  # not the document's opening
    assert segments("a \ue000b\ue001 c\n\nd") == [("a ", False), ("b", True), (" c d", False)]


def test_results_page_marks_the_match_and_escapes_the_text(client: Any, app: Any) -> None:
    from tests.web.test_routes import assert_escaped, key, text

    k = key(app, "tne")
    body = text(client.get(f"/data/{k}?q=crowds"))
    assert re.search(r'id="matching">1<', body)
    assert "<mark>crowd</mark>" in body
    assert "&lt;img src=x onerror=alert(6)&gt;" in body  # the passage, as text
    assert_escaped(body)
    plain = text(client.get(f"/data/{k}"))
    assert "<mark>" not in plain  # no search, no snippet: the opening line as before


def test_an_index_of_the_former_version_is_rebuilt(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from refbench.web import index

    ds = open_dataset(FILES["winograd"])
    folder = IndexFolder(tmp_path / "index")
    monkeypatch.setattr(index, "INDEX_VERSION", index.INDEX_VERSION - 1)
    folder.ensure(ds)
    monkeypatch.undo()
    assert not folder.is_current(ds)
    with folder.connect(ds) as db:
        assert db.execute("SELECT count(*) FROM texts").fetchone()[0] == 3
        sql = db.execute("SELECT sql FROM sqlite_master WHERE name = 'fts'").fetchone()[0]
        assert "porter" in sql


@needs_shared(TNE_TRAIN)
def test_firefighter_finds_the_train_documents_that_say_firefighters(tmp_path: Path) -> None:
    """The real TNE train file: every document with a word of the stem "firefight"
    (firefighters, firefighting, firefight: counted here with a regular expression over the
    texts) is found by "firefighter", which no document says."""
    with gzip.open(TNE_TRAIN, "rt", encoding="utf-8") as fh:
        texts = [json.loads(line)["text"] for line in fh]
    stem = sum(bool(re.search(r"\bfirefight", t, re.I)) for t in texts)
    plural = sum(bool(re.search(r"\bfirefighters\b", t, re.I)) for t in texts)
    assert not any(re.search(r"\bfirefighter\b", t, re.I) for t in texts)
    assert (len(texts), stem, plural) == (3988, 43, 39)
    db = _index(tmp_path, TNE_TRAIN)
    n, rows = _search(db, "firefighter")
    assert n == stem
    assert _search(db, "firefighters")[0] == stem  # the same stem
    assert _search(db, '"firefighters"', "advanced")[0] == stem
    for row in rows:
        marked = [t.lower() for t, hit in row["snippet"] if hit]
        assert marked and all(t.startswith("firefight") for t in marked), row["snippet"]
