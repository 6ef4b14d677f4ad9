"""Entities named like pronouns (He, Her, Ey, They, ...): a name is a name whatever it spells.

The official KITMUS name pool holds census surnames such as ``He`` and ``Her`` and the release
uses them. This module builds refbench's own small suite whose names are *only* such words and
checks that every reader, the validator, the converters, the scorer and the models agree on
which mention is the pronoun (the one after the meet sentence) and which are the candidates.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from refbench.runs.runner import run_model
from refbench.tasks.choices import read_choices
from refbench.tasks.kitmus.convert import convert
from refbench.tasks.kitmus.generate.resources import BUILTIN_DIR, load_resources
from refbench.tasks.kitmus.generate.suite import generate_suite, make_config
from refbench.tasks.kitmus.generate.validate import validate_suite
from refbench.tasks.kitmus.native import read_native
from refbench.tasks.kitmus.score.evaluate import evaluate_files
from refbench.tasks.kitmus.score.gold import read_gold
from tests.conftest import run_cli

PRONOUN_NAMES = ["He", "Her", "Ey", "They", "She", "Him", "His", "Them", "Their", "Ze", "Zir",
                 "Eir", "Em", "Xe", "Hers", "You", "It", "We", "Hir", "Theirs"]
SUBTASK = "background-both/subtask_{n}_ents"


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("pronoun-names")
    res = root / "resources"
    shutil.copytree(BUILTIN_DIR, res)
    (res / "names.txt").write_text("\n".join(PRONOUN_NAMES) + "\n")
    out = root / "suite"
    cfg = make_config(variants=["background-pretrain", "background-both"], entities=[2, 3, 4],
                      splits=["test"], sizes={"test": 12}, seed=3)
    generate_suite(load_resources(res), out, cfg, workers=1, overwrite=True, progress=False)
    yield out


def _files(suite: Path, n: int) -> dict[str, Path]:
    sub = suite / SUBTASK.format(n=n)
    return {"native": sub / "test.jsonl",
            "conll": sub / "full-text" / "test.v4_gold_conll",
            "jsonlines": sub / "full-text" / "test.jsonlines",
            "task-conll": sub / "task-text-only" / "test.v4_gold_conll"}


def test_the_fixture_uses_pronoun_names_as_entities(suite: Path) -> None:
    insts = list(read_native(suite / SUBTASK.format(n=4) / "test.jsonl"))
    names = {e.name for i in insts for e in i.entities}
    assert names <= set(PRONOUN_NAMES)
    # some instance has an entity spelled exactly like its own pronoun (He / he, They / they)
    assert any(i.pronoun.lower() in {e.name.lower() for e in i.entities} for i in insts)


def test_suite_validates(suite: Path) -> None:
    report = validate_suite(suite, progress=False)
    assert report["ok"], report["violations"][:5]
    assert report["instances"] == 2 * 3 * 12


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_reader_agrees_with_the_generator(suite: Path, n: int) -> None:
    files = _files(suite, n)
    native = list(read_native(files["native"]))
    expected = [(i.entities[i.answer].name, i.pronoun) for i in native]
    for fmt in ("conll", "jsonlines", "task-conll", "native"):
        golds = list(read_gold(files[fmt]))
        assert [(g.candidates[g.answer].name, g.pronoun_form.lower()) for g in golds] == \
            expected, fmt
        for g in golds:
            assert len(g.candidates) == n
    if n == 2:
        tsv = suite / SUBTASK.format(n=n) / "full-text" / "test.tsv"
        assert [(g.candidates[g.answer].name, g.pronoun_form.lower())
                for g in read_gold(tsv)] == expected
    for inst, (name, pronoun) in zip(read_choices(files["conll"]), expected, strict=True):
        assert inst.candidates[inst.gold].text == name
        assert inst.expression.lower() == pronoun
        off = inst.expression_offset
        assert off is not None and inst.context[off:off + len(inst.expression)] == \
            inst.expression
        # the expression is in the last sentence, never a name of the meet sentence
        assert off > max(s for c in inst.candidates for s, _ in c.char_spans)


@pytest.mark.parametrize("target", ["jsonlines", "conll", "tsv"])
def test_conversions_round_trip(suite: Path, tmp_path: Path, target: str) -> None:
    src = _files(suite, 2)["conll"]
    ext = {"jsonlines": "jsonlines", "conll": "v4_gold_conll", "tsv": "tsv"}[target]
    out = tmp_path / f"test.{ext}"
    assert convert(src, out) == 12
    before = [(g.candidates[g.answer].name, g.pronoun_form, g.pronoun_offset)
              for g in read_gold(src)]
    after = [(g.candidates[g.answer].name, g.pronoun_form, g.pronoun_offset)
             for g in read_gold(out)]
    assert after == before
    if target == "jsonlines":
        back = tmp_path / "back.v4_gold_conll"
        convert(out, back)
        assert [g.answer for g in read_gold(back)] == [g.answer for g in read_gold(src)]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_gold_scored_against_itself_is_perfect(suite: Path, n: int) -> None:
    files = _files(suite, n)
    for pred in (files["jsonlines"], files["native"]):
        result = evaluate_files(files["conll"], [pred], bootstrap=0)
        assert result["pronoun_accuracy"] == 1.0, pred
        assert result["antecedent_f1"] == 1.0


def test_cli_run_and_evaluate_agree(suite: Path, tmp_path: Path) -> None:
    conll = _files(suite, 3)["conll"]
    r = run_cli("run", "--model", "first", "--data", str(conll), "--out", str(tmp_path / "run"),
                "--store", str(tmp_path / "store.sqlite"), "--json")
    assert r.returncode == 0, r.stderr
    acc = json.loads(r.stdout)["accuracy"]
    e = run_cli("evaluate", "--task", "kitmus", "--gold", str(conll), "--pred",
                str(tmp_path / "run" / "predictions.jsonl"), "--json")
    assert e.returncode == 0, e.stderr
    assert json.loads(e.stdout)["pronoun_accuracy"] == pytest.approx(acc)


@pytest.mark.parametrize("model", ["random", "first", "last", "nearest", "knowledge-match"])
def test_models_run_on_pronoun_names(suite: Path, tmp_path: Path, model: str) -> None:
    conll = _files(suite, 4)["conll"]
    metrics = run_model(model, conll, tmp_path / model, progress=False)
    assert metrics["n"] == 12
    if model == "knowledge-match":  # background-both: the text gives the knowledge
        assert metrics["accuracy"] == 1.0
