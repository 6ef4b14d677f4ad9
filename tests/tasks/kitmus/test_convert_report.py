"""Converters round-trip (converted gold scores 1.0), and reports render every format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripts.regen_golden import GOLDEN

from refbench.core.errors import RefbenchError
from refbench.tasks.kitmus.convert import convert
from refbench.tasks.kitmus.score.evaluate import evaluate_files
from refbench.tasks.kitmus.score.gold import read_gold
from tests.conftest import run_cli

NATIVE2 = GOLDEN / "background-pretrain" / "subtask_2_ents" / "test.jsonl"
NATIVE3 = GOLDEN / "background-inference-charfict-wordfict" / "subtask_3_ents" / "train.jsonl"


@pytest.mark.parametrize("native", [NATIVE2, NATIVE3])
def test_round_trips_score_one(tmp_path: Path, native: Path) -> None:
    conll = tmp_path / "a.v4_gold_conll"
    jl = tmp_path / "b.jsonlines.gz"
    back = tmp_path / "c.conll"
    convert(native, conll)
    convert(conll, jl)
    convert(jl, back)
    originals = list(read_gold(native))
    for converted in (conll, jl, back):
        for gold, pred in ((native, converted), (converted, native), (converted, converted)):
            if str(gold).endswith(".jsonlines.gz"):
                continue
            r = evaluate_files(gold, [pred], bootstrap=0)
            assert r["pronoun_accuracy"] == 1.0 and r["antecedent_f1"] == 1.0
    for converted in (conll, back):
        assert [(g.candidates, g.answer, g.pronoun_span) for g in read_gold(converted)] == [
            (g.candidates, g.answer, g.pronoun_span) for g in originals]


def test_views_and_gap_conversion(tmp_path: Path) -> None:
    tsv = tmp_path / "t.tsv"
    convert(NATIVE2, tsv, view="task-text-only")
    ours = (GOLDEN / "background-pretrain" / "subtask_2_ents" / "task-text-only" /
            "test.tsv").read_text()
    assert tsv.read_text() == ours  # the converter writes exactly the generator's GAP rows
    with pytest.raises(RefbenchError) as info:
        convert(NATIVE3, tmp_path / "x.tsv")
    assert "GAP TSV holds 2 candidates" in info.value.message
    assert not (tmp_path / "x.tsv").exists()


def test_convert_cli_rejects_gap_input(tmp_path: Path) -> None:
    tsv = GOLDEN / "background-pretrain" / "subtask_2_ents" / "full-text" / "test.tsv"
    r = run_cli("convert", str(tsv), str(tmp_path / "x.conll"))
    assert r.returncode == 2 and "has no tokens" in r.stderr


def _suite_result(tmp_path: Path) -> Path:
    result = {
        "task": "kitmus", "mode": "suite", "split": "test",
        "cells": [
            {"system": "<b>sys</b>", "variant": "background-both", "n_entities": n,
             "pronoun_accuracy": acc, "pronoun_accuracy_std": 0.01, "n_runs": 2,
             "antecedent_f1": acc}
            for n, acc in ((2, 0.9), (3, 0.8), (4, 0.7))
        ],
        "random_baseline": {"background-both|2": 0.5, "background-both|3": 1 / 3,
                            "background-both|4": 0.25},
    }
    p = tmp_path / "suite.json"
    p.write_text(json.dumps(result))
    return p


def test_report_formats_and_escaping(tmp_path: Path) -> None:
    res = _suite_result(tmp_path)
    md = run_cli("report", str(res), "--format", "md")
    assert md.returncode == 0, md.stderr
    assert "**Pronoun accuracy, test split (&lt;b&gt;sys&lt;/b&gt;)**" in md.stdout
    assert "| background-both | 0.900 ± 0.010 | 0.800 ± 0.010 | 0.700 ± 0.010 |" in md.stdout
    assert "| chance (random baseline) | 0.500 | 0.333 | 0.250 |" in md.stdout
    html = run_cli("report", str(res), "--format", "html").stdout
    assert "&lt;b&gt;sys&lt;/b&gt;" in html and "<b>sys</b>" not in html
    latex = run_cli("report", str(res), "--format", "latex").stdout
    assert r"\begin{tabular}" in latex and r"$\pm$" in latex
    csv_out = run_cli("report", str(res), "--format", "csv").stdout
    assert csv_out.splitlines()[0].startswith("task,system,kind,data,split,variant,n_entities")
    png = tmp_path / "plot.png"
    r = run_cli("report", str(res), "--plot", str(png), "--metric", "antecedent_f1")
    assert r.returncode == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = run_cli("report", str(tmp_path / "missing.json"))
    assert bad.returncode == 2 and "result file not found" in bad.stderr
