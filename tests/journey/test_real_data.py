"""The journey on the real releases in ../shared/data (skipped without them): for every task,
``evaluate`` on what ``run`` wrote gives the figures ``run`` printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import OFFICIAL, SHARED, needs_shared
from tests.journey.test_journey import TASK_KEYS, ok, same_figures

DATA = SHARED / "data"
RELEASED = OFFICIAL / "released"
# Two subtasks of the official release (the whole release takes minutes; run it by hand).
READABLE = [("background-train", 2), ("background-both", 4)]
CASES = [
    ("kitmus", RELEASED / "background-train" / "subtask_2_ents" / "full-text"
     / "test.v4_gold_conll.gz", []),
    ("kitmus", RELEASED / "background-train" / "subtask_2_ents" / "full-text" / "test.tsv.gz",
     []),
    ("knowref", DATA / "knowref" / "knowref_test.json", []),
    ("gap", DATA / "gap" / "gap-test.tsv", []),
    ("winograd", DATA / "winograd" / "wsc273.jsonl", []),
    ("altentities", DATA / "altentities" / "books" / "test.json.gz", ["--input", "infobox"]),
]


@needs_shared(DATA)
@pytest.mark.parametrize(("task", "data", "extra"), CASES,
                         ids=[f"{t}-{p.name}" for t, p, _ in CASES])
def test_evaluate_equals_run_on_real_data(task: str, data: Path, extra: list[str],
                                          tmp_path: Path) -> None:
    out = tmp_path / "run"
    run = json.loads(ok("run", "--model", "first", "--data", str(data), "--out", str(out),
                        "--store", str(tmp_path / "s.sqlite"), "--json", "--quiet", *extra))
    assert run["n"] > 200 and run["split"] == "test"
    ev = json.loads(ok("evaluate", "--task", task, "--gold", str(data), "--pred", str(out),
                       "--json"))
    same_figures(task, run, ev)
    assert all(run[k] is not None for k in TASK_KEYS[task] if k != "bias")
    md = ok("report", str(out), "--ci")
    assert "first" in md and "test" in md


@needs_shared(RELEASED)
def test_suite_journey_on_official_files(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    for variant, n in READABLE:
        src = RELEASED / variant / f"subtask_{n}_ents" / "full-text" / "test.v4_gold_conll.gz"
        dst = suite / variant / f"subtask_{n}_ents" / "full-text" / src.name
        dst.parent.mkdir(parents=True)
        dst.symlink_to(src)
    text = ok("run", "--model", "first", "--data", str(suite), "--out", str(tmp_path / "first"),
              "--store", str(tmp_path / "s.sqlite"), "--quiet")
    assert "| background-pretrain | 0." in text and "| background-both | " in text
    run = json.loads((tmp_path / "first" / "suite-results.json").read_text())
    ev = json.loads(ok("evaluate", "--task", "kitmus", "--gold", str(suite), "--pred",
                       str(tmp_path / "first"), "--json"))
    assert len(ev["cells"]) == len(run["cells"]) == 2
    for a, b in zip(run["cells"], ev["cells"], strict=True):
        for key in ("variant", "n_entities", "pronoun_accuracy", "antecedent_f1", "n"):
            assert a[key] == b[key], key
        assert a["ci95"]["pronoun_accuracy"] == b["ci95"]["pronoun_accuracy"]
        assert b["n"] == 2000 and b["system"] == "first"
