"""Every TNE file in ../shared read fully and held to the paper's published figures: document
counts, Table 3 (every statistic refbench reproduces, exactly at the paper's precision), Table 4
where a baseline reproduces, the documented facts where none does, and every format round trip
(refbench predictions and the leaderboard matrix, gold scoring 100). Skips without ../shared."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from refbench.tasks.tne.metrics import evaluate_tne
from refbench.tasks.tne.models.baselines import (
    BASELINES,
    SURFACE_EXPAND_READINGS,
    TABLE4,
    score_links,
    window_links,
)
from refbench.tasks.tne.predictions import gold_relations, read_predictions, write_predictions
from refbench.tasks.tne.read import PREP_ID, NPDocument, read_tne
from refbench.tasks.tne.stats import (
    COUNTS,
    NOT_REPRODUCED,
    PAPER_TABLE3,
    STATISTICS,
    table3_statistics,
)
from tests.conftest import SHARED, needs_shared, run_cli

TNE = SHARED / "data" / "tne"
pytestmark = needs_shared(TNE)
FILES = {"train": "train-reconstructed-v1.1.jsonl.gz", "dev": "dev.jsonl.gz",
         "dev-v1.1": "dev-v1.1.jsonl.gz", "test": "test.jsonl.gz",
         "test_unlabeled": "test_unlabeled-v1.1.jsonl.gz", "ood": "ood.jsonl.gz"}
DOCUMENTS = {"train": 3988, "dev": 500, "dev-v1.1": 500, "test": 500, "test_unlabeled": 500,
             "ood": 509}
Release = dict[str, list[NPDocument]]


@pytest.fixture(scope="module")
def release() -> Release:
    return {key: list(read_tne(TNE / name)) for key, name in FILES.items()}


def _raw_np_ids(path: Path) -> list[list[str]]:
    """NP ids in the file's own order, straight from the JSON (v1.0 dict or v1.1 list)."""
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            nps = json.loads(line)["nps"]
            out.append([n["id"] for n in (nps.values() if isinstance(nps, dict) else nps)])
    return out


def test_every_file_reads_fully(release: Release) -> None:
    assert {k: len(v) for k, v in release.items()} == DOCUMENTS
    for key, docs in release.items():
        with gzip.open(TNE / FILES[key], "rt", encoding="utf-8") as fh:
            assert sum(1 for _ in fh) == len(docs)  # one document per line, none skipped
        assert len({d.id for d in docs}) == len(docs)
        assert all(d.relations is None for d in docs) == (key == "test_unlabeled")


def _assert_reproduces(stats: dict[str, float | int | None], column: str) -> None:
    paper = PAPER_TABLE3[column]
    for stat in STATISTICS:
        if stat in NOT_REPRODUCED or stats[stat] is None:
            continue
        if stat in COUNTS:
            assert stats[stat] == paper[stat], (column, stat)
        else:  # the paper prints one decimal: refbench's figure must round to it
            assert round(float(stats[stat]), 1) == paper[stat], (column, stat, stats[stat])  # type: ignore[arg-type]


def test_table3_reproduced_exactly(release: Release) -> None:
    for key, column in (("train", "train"), ("dev", "dev"), ("dev-v1.1", "dev"),
                        ("test", "test"), ("test_unlabeled", "test")):
        _assert_reproduces(table3_statistics(release[key])["all"], column)
    ood = table3_statistics(release["ood"])
    assert list(ood) == ["all", "books", "imdb", "reddit"]
    for group, column in (("all", "ood"), ("books", "books"), ("imdb", "imdb"),
                          ("reddit", "reddit")):
        _assert_reproduces(ood[group], column)
    together = table3_statistics(release["train"] + release["dev"] + release["test"]
                                 + release["ood"])["all"]
    _assert_reproduces(together, "all")
    assert together["np_links"] == 1_026_657 and together["documents"] == 5_497
    unlabelled = table3_statistics(release["test_unlabeled"])["all"]
    assert unlabelled["coref_clusters"] == 2_581 and unlabelled["np_links"] is None


def test_dev_releases_and_unlabelled_test_agree(release: Release) -> None:
    assert release["dev"] == release["dev-v1.1"]  # every field, v1.0 dict nps vs v1.1 list
    for labelled, bare in zip(release["test"], release["test_unlabeled"], strict=True):
        assert (labelled.id, labelled.text, labelled.tokens, labelled.nps, labelled.clusters) \
            == (bare.id, bare.text, bare.tokens, bare.nps, bare.clusters)


def test_train_file_nulls_are_read(release: Release) -> None:
    train = release["train"]
    assert sum(d.metadata.get("source") is None for d in train) == 709
    assert sum(d.source == "unknown" for d in train) == 709
    assert sum(len(d.repeated_relations) for d in train) == 44
    assert sum(len(d.repeated_relations) for d in release["dev"]) == 9
    assert sum(len(d.repeated_relations) for d in release["test"]) == 2


def test_nps_keep_the_file_order(release: Release) -> None:
    for key in ("dev", "test", "ood"):
        raw = _raw_np_ids(TNE / FILES[key])
        assert [[n.id for n in d.nps] for d in release[key]] == raw
    late = sum([d.text_rank()[n.id] for n in d.nps] != list(range(len(d.nps)))
               for d in release["test"])
    assert late == 325  # documents whose file order is not text order


@pytest.mark.parametrize("key", ["test", "ood"])
def test_formats_round_trip_and_gold_scores_100(tmp_path: Path, release: Release,
                                               key: str) -> None:
    docs = release[key]
    gold = {d.id: d for d in docs}
    answers = [gold_relations(d) for d in docs]
    ours, board, back = tmp_path / "ours.jsonl", tmp_path / "board.jsonl", tmp_path / "b.jsonl"
    write_predictions(docs, answers, ours)
    write_predictions(docs, answers, board, leaderboard=True)
    from_ours, from_board = read_predictions(ours, gold), read_predictions(board, gold)
    assert [from_ours[d.id].relations for d in docs] == answers
    assert [from_board[d.id].relations for d in docs] == answers
    write_predictions(docs, [from_board[d.id].relations for d in docs], back)  # board -> ours
    assert read_predictions(back, gold) == from_ours
    for preds in (from_ours, from_board):
        r = evaluate_tne(docs, preds)
        assert r["labeled_f1"] == r["unlabeled_f1"] == 1.0
    first = json.loads(board.read_text().splitlines()[0])
    ids = [n.id for n in docs[0].nps]
    (a, c), prep = next(iter(answers[0].items()))
    assert first["predicted_prepositions"][ids.index(a)][ids.index(c)] == PREP_ID[prep]


def test_cli_gold_to_leaderboard_scores_100(tmp_path: Path) -> None:
    board = tmp_path / "board.jsonl"
    gold = str(TNE / FILES["test"])
    r = run_cli("tne", "convert", gold, str(board), "--gold", gold, "--to", "leaderboard")
    assert r.returncode == 0, r.stderr
    e = run_cli("evaluate", "--task", "tne", "--gold", gold, "--pred", str(board), "--json")
    assert e.returncode == 0, e.stderr
    assert json.loads(e.stdout)["labeled_f1"] == 1.0


def test_baselines_against_table4(release: Release) -> None:
    test = release["test"]
    ours = {}
    for name, fn in BASELINES.items():
        r = score_links(test, [fn(d, 0) for d in test])
        ours[name] = tuple(100 * r[k] for k in ("labeled_precision", "labeled_recall",
                                                "labeled_f1"))
    assert tuple(round(x, 1) for x in ours["title-first"]) == TABLE4["title-first"]
    for name in ("title-last", "title-random", "adj-forward", "adj-backward"):
        assert all(abs(a - b) <= 0.4 for a, b in zip(ours[name], TABLE4[name], strict=True))
    assert round(ours["surface"][1], 1) == TABLE4["surface"][1]  # recall only: P 51.0 vs 43.5
    # Not reproduced (docs/tne-baselines.md): refbench's readings, held to their documented
    # figures, and the two facts that rule out every window reading of surface-expand.
    documented = {"surface-expand": (23.89, 16.90, 19.79), "combined": (24.62, 21.22, 22.79),
                  "combined-coref": (27.10, 47.90, 34.61)}
    for name, row in documented.items():
        assert all(abs(a - b) < 0.006 for a, b in zip(ours[name], row, strict=True)), name
    gold_pairs = sum(len(d.relations or {}) for d in test)
    every_pair = sum(len(d.nps) * (len(d.nps) - 1) for d in test)
    assert 100 * gold_pairs / every_pair == pytest.approx(17.21, abs=0.01)  # > 14.4
    widest = SURFACE_EXPAND_READINGS["both-10-between"][1]
    found = sum(len(window_links(d, widest) & set(d.relations or {})) for d in test)
    assert 100 * found / gold_pairs == pytest.approx(18.19, abs=0.01)  # < 37.8 / 2
