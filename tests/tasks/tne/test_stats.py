"""TNE Table 3 statistics, hand-worked on refbench's own tiny document (no ../shared needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refbench.tasks.tne.read import document_from_json
from refbench.tasks.tne.stats import paper_column, render_table3, table3_statistics
from tests.conftest import run_cli
from tests.tasks.tne.test_tne import DOC, write_docs


def test_hand_worked_statistics() -> None:
    doc = json.loads(json.dumps(DOC))
    doc["np_relations"] += [{"anchor": "np3", "complement": "np2", "preposition": "of"},
                            {"anchor": "np2", "complement": "np3", "preposition": "of"}]
    doc["coref"] = [{"id": "cc0", "members": ["np4", "np5"], "np_type": None},
                    {"id": "cc1", "members": ["np2"], "np_type": "standard"}]
    stats = table3_statistics([document_from_json(doc)])
    assert list(stats) == ["all"]
    s = stats["all"]
    # 7 relation entries + np3->np2 + a repeated np2->np3 "of": 9 links over 8 (a, c, p) triples
    assert (s["documents"], s["tokens"], s["nps"], s["np_links"]) == (1, 17, 6, 9)
    assert s["coref_clusters"] == 1  # the singleton cc1 is not a cluster
    # pairs: 2-3, 3-4, 2-4, 2-5, 3-5, 0-1, 3-2; np4 and np5 share a cluster, so 2-4 and 2-5
    # are one link to it and 3-4 and 3-5 another: 5 anchor-to-cluster links
    assert s["coref_links"] == 5
    # first-token distances: 2-3 of (3, twice), 3-4 in 3, 2-4 in 6, 2-5 near 10, 3-5 near/by
    # (7, 7), 0-1 on 2, 3-2 of 3
    assert s["avg_surface_distance"] == pytest.approx((3 + 3 + 3 + 6 + 10 + 7 + 7 + 2 + 3) / 9)
    assert s["pct_backward"] == pytest.approx(100 / 9)  # np3 -> np2
    assert s["avg_symmetric_links"] == pytest.approx(3 / 2)  # 2->3 (twice) and 3->2
    assert s["pct_title_links"] == pytest.approx(100 / 9)  # np0 -> np1 "coast"
    assert s["pct_surface_form"] == pytest.approx(300 / 9)  # "roof of the house" (x2), "in"
    # complement at most 10 tokens after the anchor with the preposition between: of (x2),
    # in (3-4), in (2-4), near (2-5), near (3-5)
    assert s["pct_surface_form_plus"] == pytest.approx(600 / 9)
    assert s["avg_transitive"] is None
    unlabelled = table3_statistics([document_from_json(
        {k: v for k, v in DOC.items() if k != "np_relations"})])["all"]
    assert unlabelled["nps"] == 6 and unlabelled["np_links"] is None


def test_domains_and_columns(tmp_path: Path) -> None:
    books = {**DOC, "id": "b", "metadata": {"source": "A___B.txt_gut.json"}}
    imdb = {**DOC, "id": "i", "metadata": {"source": "test_pos_0_10.txt_imdb.json"}}
    stats = table3_statistics(document_from_json(d) for d in (DOC, books, imdb))
    assert list(stats) == ["all", "books", "imdb", "reddit"]
    assert stats["all"]["np_links"] == 3 * stats["books"]["np_links"]  # type: ignore[operator]
    assert paper_column("x/ood.jsonl.gz", "all") == "ood"
    assert paper_column("train-reconstructed-v1.1.jsonl.gz", "all") == "train"
    assert paper_column("ood.jsonl.gz", "imdb") == "imdb"
    assert paper_column("mine.jsonl", "all") is None
    assert paper_column("ood_books.jsonl.gz", "all") == "books"
    assert paper_column("ood_reddit_atheism.jsonl.gz", "all") is None
    assert paper_column("ood_unlabaled.jsonl.gz", "all") == "ood"
    data = write_docs(tmp_path, [DOC, books, imdb], name="ood-mine.jsonl")
    r = run_cli("tne", "stats", str(data), "--json", "--total")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["files"][0]["groups"]["books"]["paper"]["np_links"] == 22886
    assert out["total"]["statistics"]["documents"] == 3
    text = run_cli("tne", "stats", str(data))
    assert "reddit (paper: reddit)" in text.stdout and "pct_intersentential *" in text.stdout
    assert render_table3(out).count("all files together") == 1
