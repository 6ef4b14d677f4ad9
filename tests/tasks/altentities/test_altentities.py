"""AltEntities: reader and input types, bad input, slices, check/leakage, matrix, sampling."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError, UsageError
from refbench.models.base import ModelOutput
from refbench.runs.record import output_metrics
from refbench.tasks.altentities.check import check_files
from refbench.tasks.altentities.matrix import matrix_from_metrics
from refbench.tasks.altentities.read import read_altentities
from refbench.tasks.altentities.sampling import (
    base_title,
    edit_distance,
    load_entities,
    parse_infobox,
    sample_pairs,
)
from refbench.tasks.lookup import get_task
from tests.conftest import run_cli

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "altentities" / "books-recipes.json"


def questions() -> list[dict]:  # type: ignore[type-arg]
    return json.loads(FIX.read_text())


def write(tmp_path: Path, data: list, name: str = "x.json") -> Path:  # type: ignore[type-arg]
    p = tmp_path / name
    p.write_text(json.dumps(data))
    return p


def test_reader_and_every_input_type() -> None:
    by_type = {t: list(read_altentities(FIX, input_type=t))
               for t in ("name", "infobox", "unshown_background", "oracle")}
    assert all(len(v) == 5 for v in by_type.values())  # 3 + 2 expressions
    first = by_type["name"][0]
    assert first.expression == "the one set in Indonesia" and first.gold == 1
    assert [c.text for c in first.candidates] == ["The Silent Tide", "Orchard of Glass"]
    assert first.metadata["domain"] == "BOOKS" and first.metadata["sampling_method"] == "UNIFORM"
    assert first.candidates[1].description is None
    assert "country: Indonesia" in (by_type["infobox"][0].candidates[1].description or "")
    assert "magical orchard" in (by_type["unshown_background"][0].candidates[1].description or "")
    assert "girl who grows glass apples" in (by_type["oracle"][0].candidates[1].description or "")
    ids = [i.id for i in by_type["name"]]
    assert len(set(ids)) == 5 and ids[0].startswith("books:")


def test_oracle_on_songs_is_a_clear_error(tmp_path: Path) -> None:
    data = questions()[:1]
    data[0]["domain"] = "SONGS"
    with pytest.raises(UsageError) as info:
        list(read_altentities(write(tmp_path, data), input_type="oracle"))
    assert "oracle input type does not exist for SONGS" in info.value.message


def test_truncation_is_counted() -> None:
    cut = list(read_altentities(FIX, input_type="unshown_background", max_words=4))
    assert cut[0].metadata["truncated"] == 2
    assert len((cut[0].candidates[0].description or "").split()) == 4
    outs = [ModelOutput(0, (1.0, 0.0)) for _ in cut]
    assert output_metrics(get_task("altentities"), cut, outs)["truncated_instances"] == 5


@pytest.mark.parametrize(
    ("mutate", "message"),
    [(lambda q: q.pop("choices"), "missing field 'choices'"),
     (lambda q: q.update(target_index=2),
      "field 'target_index': expected an integer from 0 to 1, found a number (2)"),
     (lambda q: q.update(target_index=True), "found a boolean (true)"),
     (lambda q: q.update(expressions=[]), "field 'expressions': expected a non-empty list"),
     (lambda q: q["choices"][0].pop("name"), "missing field 'choices[0].name'")],
)
def test_bad_input_names_file_and_question(tmp_path: Path, mutate, message) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(questions())
    mutate(data[1])
    p = write(tmp_path, data)
    with pytest.raises(RefbenchError) as info:
        list(read_altentities(p))
    assert message in info.value.message
    assert info.value.path == str(p) and "question 1" in (info.value.item or "")
    r = run_cli("run", "--model", "first", "--data", str(p), "--out", str(tmp_path / "o"),
                "--no-store")
    assert r.returncode == 2 and message in r.stderr


def test_slices_on_hand_worked_numbers() -> None:
    inst = list(read_altentities(FIX, input_type="name"))
    # books (gold 1,1,1): answers 1,0,1 -> 2/3; recipes (gold 1,1): answers 1,1 -> 2/2
    outs = [ModelOutput(a, (0.0, 1.0)) for a in (1, 0, 1, 1, 1)]
    m = output_metrics(get_task("altentities"), inst, outs)
    assert m["accuracy"] == pytest.approx(4 / 5)
    assert m["slices"]["domain"]["BOOKS"] == {"n": 3, "accuracy": pytest.approx(2 / 3)}
    assert m["slices"]["domain"]["RECIPES"]["accuracy"] == 1.0
    assert m["slices"]["sampling_method"]["SIMILAR_TITLE"]["n"] == 2
    assert m["slices"]["input_type"]["name"]["n"] == 5


def test_check_statistics_and_leakage(tmp_path: Path) -> None:
    data = questions()
    dev = write(tmp_path, data, "dev.json")
    test = write(tmp_path, [data[1]], "test.json")
    report = check_files([dev, test])
    assert [f["split"] for f in report["files"]] == ["dev", "test"]
    assert report["files"][0]["expressions"] == 5
    assert report["files"][0]["expressions_per_question"] == 2.5
    assert report["leakage"]["RECIPES"]["entities"] == 2
    assert "BOOKS" not in report["leakage"]
    r = run_cli("altentities", "check", str(dev), str(test), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["leakage"]["RECIPES"]["entities"] == 2


def test_cross_domain_matrix() -> None:
    def run(domains: list[str], accs: dict[str, float]) -> dict:  # type: ignore[type-arg]
        return {"task": "altentities", "model": "cross-encoder:/x",
                "provenance": {"model_config": {"name": "cross-encoder",
                                                "train_domains": domains}},
                "slices": {"domain": {d: {"accuracy": a, "n": 10} for d, a in accs.items()}}}

    result = matrix_from_metrics([run(["BOOKS"], {"BOOKS": 0.8, "SONGS": 0.6}),
                                  run(["BOOKS", "SONGS"], {"BOOKS": 0.7, "SONGS": 0.9})])
    assert result["columns"] == ["BOOKS", "SONGS", "average"]
    assert result["rows"]["BOOKS (cross-encoder)"]["average"]["accuracy"] == pytest.approx(0.7)
    assert result["rows"]["mixed (cross-encoder)"]["SONGS"]["accuracy"] == 0.9


def test_the_matrix_refuses_an_edited_run(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The matrix reads run folders as every other table does: a record whose figure was
    edited after it was sealed is refused (exit 2, naming the file), never tabulated."""
    from refbench.cli import app
    from refbench.core.commands import run_guarded
    from tests.models.conftest import DATA

    out = tmp_path / "run"
    assert run_guarded(app, ["run", "--model", "first", "--data", str(DATA["altentities"]),
                             "--out", str(out), "--no-store", "--quiet"]) == 0
    assert run_guarded(app, ["altentities", "matrix", str(out), "--json"]) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    metrics["accuracy"] = 0.99
    (out / "metrics.json").write_text(json.dumps(metrics))
    capsys.readouterr()
    assert run_guarded(app, ["altentities", "matrix", str(out)]) == 2
    err = capsys.readouterr().err
    assert "refused" in err and str(out / "metrics.json") in err


def test_sampling_helpers() -> None:
    assert edit_distance("the host", "the hole") == 2
    assert edit_distance("abc", "abcdefgh", 3) == 4
    assert base_title("Dawn (McLaughlin novel)") == ("Dawn", "McLaughlin novel")
    assert parse_infobox(": . type: Soup. country: Japan") == {"type": "soup", "country": "japan"}


@pytest.fixture
def entity_file(tmp_path: Path) -> Path:
    rows = [
        {"name": "Dawn (McLaughlin novel)", "description": "A novel about dawn.", "infobox": {}},
        {"name": "Dawn (Andrews novel)", "description": "Another novel about dawn.",
         "infobox": {}},
        {"name": "The Host", "description": "Aliens invade Earth.", "infobox": {"genre": "sf"}},
        {"name": "The Hole", "description": "A boy digs holes.", "infobox": {"genre": "sf"}},
        {"name": "Quiet Rivers", "description": "Fishing on a quiet river in spring.",
         "infobox": {"genre": "memoir"}},
        {"name": "Silent Streams", "description": "Fishing by silent streams in spring.",
         "infobox": {"genre": "memoir"}},
    ]
    p = tmp_path / "entities.jsonl"
    p.write_text("".join(json.dumps({**r, "domain": "BOOKS"}) + "\n" for r in rows))
    return p


@pytest.mark.parametrize(
    ("method", "expected"),
    [("same-name", {frozenset({"Dawn (McLaughlin novel)", "Dawn (Andrews novel)"})}),
     ("similar-title", {frozenset({"The Host", "The Hole"})}),
     ("similar-infobox", {frozenset({"The Host", "The Hole"}),
                          frozenset({"Quiet Rivers", "Silent Streams"})})],
)
def test_sampling_methods(entity_file: Path, method: str, expected: set) -> None:  # type: ignore[type-arg]
    items = list(sample_pairs(load_entities([entity_file]), method=method, n=10,
                              attributes=["genre"] if method == "similar-infobox" else None))
    assert {frozenset(c["name"] for c in it["choices"]) for it in items} == expected
    for it in items:
        assert it["question"].startswith("Do you mean '") and it["opening"]
    if method == "same-name":  # identical titles keep their disambiguation
        assert "(" in items[0]["question"]


def test_uniform_and_description_sampling(entity_file: Path, tmp_path: Path) -> None:
    ents = load_entities([entity_file])
    uni = list(sample_pairs(ents, method="uniform", n=4, seed=1))
    assert len(uni) == 4 and uni == list(sample_pairs(ents, method="uniform", n=4, seed=1))
    desc = list(sample_pairs(ents, method="similar-description", n=10))
    pairs = {frozenset(c["name"] for c in it["choices"]) for it in desc}
    assert frozenset({"Quiet Rivers", "Silent Streams"}) in pairs
    out = tmp_path / "q.jsonl"
    r = run_cli("altentities", "sample-pairs", str(entity_file), "--method", "SIMILAR_NAME",
                "--n", "3", "--out", str(out))
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    assert lines and all(json.loads(x)["sampling_method"] == "SIMILAR_NAME" for x in lines)
    # No pair fits (no two titles of the fixture are 1-3 edits apart): an error, not an
    # empty file with exit 0.
    none = run_cli("altentities", "sample-pairs", str(FIX), "--method", "SIMILAR_NAME", "--n",
                   "3", "--out", str(tmp_path / "none.jsonl"))
    assert none.returncode == 2 and "no pair of the" in none.stderr
    assert not (tmp_path / "none.jsonl").exists()
