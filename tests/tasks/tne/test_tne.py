"""TNE: readers for both releases and spellings, hand-worked metrics, baselines, formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.tasks.tne.metrics import evaluate_tne
from refbench.tasks.tne.models.baselines import BASELINES, with_oracle_prepositions
from refbench.tasks.tne.predictions import (
    TnePrediction,
    gold_relations,
    read_predictions,
    to_leaderboard,
    write_predictions,
)
from refbench.tasks.tne.read import PREP_ID, document_from_json, read_tne
from tests.conftest import SHARED, needs_shared, run_cli

TEXT = "Storm hits coast\nThe roof of the house in the town fell near the river ."
TOKENS = ["Storm", "hits", "coast", "\n", "The", "roof", "of", "the", "house", "in", "the",
          "town", "fell", "near", "the", "river", "."]


def np_(i: str, text: str, ft: int, lt: int) -> dict:  # type: ignore[type-arg]
    start = TEXT.index(text)
    return {"id": i, "text": text, "first_char": start, "last_char": start + len(text),
            "first_token": ft, "last_token": lt}


NPS = [np_("np0", "Storm", 0, 0), np_("np1", "coast", 2, 2), np_("np2", "The roof", 4, 5),
       np_("np3", "the house", 7, 8), np_("np4", "the town", 10, 11),
       np_("np5", "the river", 14, 15)]
RELATIONS = [("np2", "np3", "of"), ("np3", "np4", "in"), ("np2", "np4", "in"),
             ("np2", "np5", "near"), ("np3", "np5", "near"), ("np3", "np5", "by"),
             ("np0", "np1", "on")]
DOC = {"id": "d1", "text": TEXT, "tokens": TOKENS,
       "nps": {n["id"]: n for n in NPS},
       "np_relations": [{"anchor": a, "complement": c, "preposition": p}
                        for a, c, p in RELATIONS],
       "coref": [{"id": "cc0", "members": ["np4"], "np_type": "standard"}],
       "metadata": {"source": "reddit_AskHistorians_formatted.json", "url": None}}


def write_docs(tmp_path: Path, docs: list, name: str = "d.jsonl") -> Path:  # type: ignore[type-arg]
    p = tmp_path / name
    p.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return p


def test_both_releases_and_spellings_read_the_same() -> None:
    v10 = document_from_json(DOC)
    v11 = document_from_json({**DOC, "nps": list(DOC["nps"].values())})
    readme = {**DOC, "nps": [{"id": n["id"], "text": n["text"], "start_index": n["first_char"],
                              "end_index": n["last_char"], "start_token": n["first_token"],
                              "end_token": n["last_token"]} for n in NPS]}
    v_readme = document_from_json(readme)
    assert v10.nps == v11.nps == v_readme.nps
    assert v10.relations == v11.relations
    assert v10.relations is not None and v10.relations[("np3", "np5")] == {"near", "by"}
    assert v10.source == "reddit/AskHistorians"
    unlabelled = document_from_json({k: v for k, v in DOC.items() if k != "np_relations"})
    assert unlabelled.relations is None


@pytest.mark.parametrize(
    ("change", "message"),
    [(lambda d: d["np_relations"].append({"anchor": "np9", "complement": "np1",
                                          "preposition": "of"}), "not an NP of the document"),
     (lambda d: d["nps"]["np5"].update(last_token=40), "lies outside the document"),
     (lambda d: d["np_relations"].append({"anchor": "np1", "complement": "np2",
                                          "preposition": "beneath"}), "unknown preposition")],
)
def test_bad_documents(tmp_path: Path, change, message: str) -> None:  # type: ignore[no-untyped-def]
    doc = json.loads(json.dumps(DOC))
    change(doc)
    p = write_docs(tmp_path, [doc])
    with pytest.raises(RefbenchError) as info:
        list(read_tne(p))
    assert message in info.value.message and info.value.line == 1


def test_hand_worked_metrics() -> None:
    doc = document_from_json(DOC)
    # gold pairs: 6 (np3->np5 has two prepositions)
    pred = TnePrediction("d1", {("np2", "np3"): "of",  # right
                                ("np3", "np5"): "by",  # right: the second gold preposition
                                ("np3", "np4"): "on",  # link right, preposition wrong
                                ("np1", "np2"): "of"},  # not a gold link
                         scores={("np2", "np4"): {"no-relation": 0.6, "in": 0.3, "of": 0.1},
                                 ("np2", "np5"): {"no-relation": 0.9, "of": 0.1}})
    r = evaluate_tne([doc], {"d1": pred})
    assert r["labeled_precision"] == pytest.approx(2 / 4)
    assert r["labeled_recall"] == pytest.approx(2 / 6)
    assert r["unlabeled_precision"] == pytest.approx(3 / 4)
    assert r["unlabeled_recall"] == pytest.approx(3 / 6)
    assert r["iprep_accuracy"] == pytest.approx(2 / 3)
    # missed gold links: np2->np4 (best non-none "in": right), np2->np5 ("of": wrong),
    # np0->np1 (no scores)
    assert r["uprep_accuracy"] == pytest.approx(1 / 2) and r["uprep_scored"] == 2
    assert r["explicit_vs_implicit"]["explicit"] == {"n_gold": 2, "recall": 1.0}
    assert r["confusion"]["in"]["on"] == 1 and r["confusion"]["no-relation"]["of"] == 1
    assert r["by_distance"]["1"]["n_gold"] == 3
    missing = evaluate_tne([doc], {})
    assert missing["n_missing_documents"] == 1 and missing["labeled_recall"] == 0.0


def test_baselines_on_the_tiny_document() -> None:
    doc = document_from_json(DOC)
    assert BASELINES["title-first"](doc, 0) == {(f"np{i}", "np0") for i in range(1, 6)}
    assert BASELINES["title-last"](doc, 0) == {("np0", "np1")} | {
        (f"np{i}", "np1") for i in range(2, 6)}
    assert BASELINES["adj-backward"](doc, 0) == {(f"np{i}", f"np{i + 1}") for i in range(5)}
    assert BASELINES["adj-forward"](doc, 0) == {(f"np{i + 1}", f"np{i}") for i in range(5)}
    # "the town fell near the river": the NP before "near" is taken as the anchor (wrongly)
    assert BASELINES["surface"](doc, 0) == {("np2", "np3"), ("np3", "np4"), ("np4", "np5")}
    assert ("np2", "np5") in BASELINES["surface-expand"](doc, 0)
    assert ("np0", "np5") not in BASELINES["surface-expand"](doc, 0)
    oracle = with_oracle_prepositions(doc, {("np2", "np3"), ("np1", "np5")})
    assert oracle == {("np2", "np3"): "of", ("np1", "np5"): "of"}
    assert BASELINES["title-random"](doc, 3) == BASELINES["title-random"](doc, 3)


def test_formats_round_trip(tmp_path: Path) -> None:
    doc = document_from_json(DOC)
    gold = {"d1": doc}
    board = to_leaderboard(doc, gold_relations(doc))
    assert len(board["predicted_prepositions"]) == 6
    assert board["predicted_prepositions"][2][3] == 1  # "of" has id 1
    out = tmp_path / "p.jsonl"
    write_predictions([doc], [gold_relations(doc)], out, leaderboard=True)
    back = read_predictions(out, gold)["d1"]
    assert back.relations == gold_relations(doc)
    assert evaluate_tne([doc], {"d1": back})["labeled_f1"] == 1.0
    ours = tmp_path / "q.jsonl"
    write_predictions([doc], [back.relations], ours)
    assert read_predictions(ours, gold)["d1"].relations == back.relations
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "nope", "np_relations": []}) + "\n")
    with pytest.raises(RefbenchError) as info:
        read_predictions(bad, gold)
    assert "unknown document 'nope'" in info.value.message


def test_leaderboard_best_prepositions_carry_uprep(tmp_path: Path) -> None:
    """The leaderboard format has no room for scores; best_prepositions keeps each pair's best
    preposition, so UPrep-Acc read back from it equals UPrep-Acc from the full scores."""
    doc = document_from_json(DOC)
    rel = {("np2", "np3"): "of", ("np1", "np2"): "of"}
    scores = {("np2", "np4"): {"no-relation": 0.6, "in": 0.3, "of": 0.1},  # gold "in": right
              ("np2", "np5"): {"no-relation": 0.9, "of": 0.1},  # gold is not "of": wrong
              ("np3", "np4"): {"no-relation": 0.7, "on": 0.2, "by": 0.2},  # tie: "by" (id 4)
              ("np0", "np1"): {"no-relation": 1.0}}  # nothing to rank: not scored
    full = evaluate_tne([doc], {"d1": TnePrediction("d1", rel, scores)})
    board = to_leaderboard(doc, rel, scores)
    best = board["best_prepositions"]
    assert best[2][4] == PREP_ID["in"] and best[2][5] == PREP_ID["of"]
    assert best[3][4] == PREP_ID["by"] and best[0][1] == 0
    out = tmp_path / "board.jsonl"
    write_predictions([doc], [rel], out, leaderboard=True, scores=[scores])
    assert json.loads(out.read_text()) == board
    back = read_predictions(out, {"d1": doc})["d1"]
    assert back.relations == rel
    again = evaluate_tne([doc], {"d1": back})
    assert again["uprep_scored"] == full["uprep_scored"] == 3
    assert again["uprep_accuracy"] == full["uprep_accuracy"] == pytest.approx(1 / 3)
    assert {k: v for k, v in again.items() if k != "uprep_accuracy"} == {
        k: v for k, v in full.items() if k != "uprep_accuracy"}
    board["best_prepositions"][1] = board["best_prepositions"][1][:3]
    out.write_text(json.dumps(board) + "\n")
    with pytest.raises(RefbenchError) as info:
        read_predictions(out, {"d1": doc})
    assert "best_prepositions[1]" in info.value.message and info.value.line == 1


def test_nps_keep_the_file_order_of_the_leaderboard_matrix() -> None:
    """An NP listed after one that follows it in the text (as annotator-added NPs are in the
    release) keeps its place: the official code and leaderboard index NPs in file order."""
    late = np_("np6", "The roof of the house", 4, 8)
    doc = document_from_json({**DOC, "nps": [*NPS, late], "np_relations": [
        {"anchor": "np6", "complement": "np4", "preposition": "in"},
        {"anchor": "np6", "complement": "np4", "preposition": "in"}]})
    assert [n.id for n in doc.nps] == [f"np{i}" for i in range(7)]
    assert doc.np_index()["np6"] == 6 and doc.text_rank()["np6"] == 3
    assert doc.repeated_relations == (("np6", "np4", "in"),)
    board = to_leaderboard(doc, gold_relations(doc))["predicted_prepositions"]
    assert board[6][4] == PREP_ID["in"]
    assert BASELINES["adj-backward"](doc, 0) >= {("np5", "np6")}


def test_cli(tmp_path: Path) -> None:
    data = write_docs(tmp_path, [DOC])
    r = run_cli("tne", "baseline", "surface", "--data", str(data), "--out",
                str(tmp_path / "s.jsonl"), "--json")
    assert r.returncode == 0, r.stderr
    surface = json.loads(r.stdout)["baselines"]["surface"]
    assert surface["labeled_precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert surface["paper_table4_test_percent"] == {"precision": 43.5, "recall": 3.3, "f1": 6.2}
    e = run_cli("evaluate", "--task", "tne", "--gold", str(data), "--pred",
                str(tmp_path / "s.jsonl"), "--json", "--plot", str(tmp_path / "c.png"),
                "--out", str(tmp_path / "scored.json"))
    assert e.returncode == 0, e.stderr
    keys = json.loads(e.stdout)
    assert (keys["n"], keys["n_missing"]) == (1, 0)  # documents, as a run folder counts them
    card = run_cli("report", str(tmp_path / "scored.json"), "--card", "--json")
    assert card.returncode == 0, card.stderr  # the card takes evaluate's result (it has n)
    for k in ("labeled_precision", "labeled_recall", "labeled_f1", "unlabeled_precision",
              "unlabeled_recall", "unlabeled_f1"):
        assert 0.0 <= keys[k] <= 1.0
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"


@needs_shared(SHARED / "data" / "tne")
def test_release_files_and_table4() -> None:
    test = list(read_tne(SHARED / "data" / "tne" / "test.jsonl.gz"))
    assert len(test) == 500
    r = evaluate_tne(test, {d.id: TnePrediction(d.id, with_oracle_prepositions(
        d, BASELINES["combined"](d, 0))) for d in test})
    assert abs(100 * r["labeled_f1"] - 22.8) <= 1.0


def test_chunker_base_nps() -> None:
    from refbench.tasks.tne.models.chunker import chunk_texts

    (chunks,) = list(chunk_texts(["The Church of Scientology sued the owner of the site in "
                                  "2005 because he wrote three letters.\nNew title here"]))
    texts = [c.text for c in chunks]
    assert "The Church of Scientology" in texts  # a named entity stays whole
    assert "the owner" in texts and "the site" in texts  # base NPs: no "of" attachment
    assert "he" not in texts  # pronouns dropped
    assert any(c.measure for c in chunks if "2005" in c.text)
    assert all("\n" not in t for t in texts)
    r = run_cli("tne", "chunk", "The roof of the house fell.", "--json")
    assert [c["text"] for c in json.loads(r.stdout)] == ["The roof", "the house"]
