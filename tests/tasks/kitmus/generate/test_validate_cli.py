"""validate and the CLI end to end: exit codes, messages, --help examples, ls."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from scripts.regen_golden import GOLDEN

from refbench.tasks.kitmus.generate.validate import validate_suite
from tests.conftest import run_cli


def test_golden_suite_validates() -> None:
    report = validate_suite(GOLDEN, progress=False)
    assert report["ok"], report["violations"]
    assert report["instances"] == 2 * 2 * 5 and report["subtasks"] == 4


def test_validate_reports_a_disagreeing_format(tmp_path: Path) -> None:
    suite = tmp_path / "s"
    shutil.copytree(GOLDEN, suite)
    tsv = suite / "background-pretrain" / "subtask_2_ents" / "task-text-only" / "test.tsv"
    lines = tsv.read_text().splitlines()
    cells = lines[1].split("\t")
    cells[6], cells[9] = cells[9], cells[6]  # swap A-coref and B-coref
    lines[1] = "\t".join(cells)
    tsv.write_text("\n".join(lines) + "\n")
    result = run_cli("kitmus", "validate", str(suite), "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert not report["ok"]
    assert any("formats disagree on the answer" in v and "tsv/task-text-only" in v
               for v in report["violations"])


def test_generate_cli_json_and_bad_input(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    ok = run_cli("kitmus", "generate", "--out", str(out), "--variants", "background-both",
                 "--entities", "2", "--sizes", "3", "--json", "--workers", "1")
    assert ok.returncode == 0, ok.stderr
    stats = json.loads(ok.stdout)
    assert stats["instances"] == 9 and stats["split_overlap_ok"]
    again = run_cli("kitmus", "generate", "--out", str(out), "--sizes", "3")
    assert again.returncode == 2
    assert again.stderr.startswith("error E300: ") and "not empty" in again.stderr
    assert "Traceback" not in again.stderr
    bad = run_cli("kitmus", "generate", "--out", str(tmp_path / "x"), "--entities", "two")
    assert bad.returncode == 2 and "--entities expects comma-separated integers" in bad.stderr
    assert not (tmp_path / "x").exists()


def test_generate_with_malformed_resources_exits_2(tmp_path: Path) -> None:
    from refbench.tasks.kitmus.generate.resources import BUILTIN_DIR

    res = tmp_path / "res"
    shutil.copytree(BUILTIN_DIR, res)
    (res / "noise" / "park.txt").write_text("The/DT grass/NN is green\n")
    result = run_cli("kitmus", "generate", "--out", str(tmp_path / "o"), "--resources", str(res))
    assert result.returncode == 2
    assert f"{res / 'noise' / 'park.txt'}:1" in result.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "command",
    [[], ["ls"], ["kitmus"], ["kitmus", "generate"], ["kitmus", "validate"],
     ["kitmus", "build-resources"], ["evaluate"], ["convert"], ["report"]],
)
def test_every_help_has_an_example(command: list[str]) -> None:
    result = run_cli(*command, "--help")
    assert result.returncode == 0
    assert "Example" in result.stdout


def test_ls_lists_registered_names() -> None:
    result = run_cli("ls", "--json")
    data = json.loads(result.stdout)
    assert len(data["variants"]) == 8
    assert {e["name"] for e in data["formats"]} == {"conll", "jsonlines", "tsv", "txt", "jsonl"}
    text = run_cli("ls", "variants").stdout
    assert "background-train" in text and "alias of background-pretrain" in text
    bad = run_cli("ls", "modles")
    assert bad.returncode == 2 and "unknown registry" in bad.stderr


def test_balance_fails_when_a_position_baseline_is_off_chance() -> None:
    """Issue 42: `first` at 0.2225 of 2,000 (4 entities, interval 0.206-0.241) was reported as
    "answer-position balance ok" (the old check allowed 4 standard errors)."""
    from collections import Counter

    from refbench.tasks.kitmus.generate.validate import BALANCE, _check_balance, _Collector

    col = _Collector()
    col.positions["background-pretrain/subtask_4_ents/test"] = Counter(
        {0: 445, 1: 520, 2: 515, 3: 520})
    col.positions["background-both/subtask_4_ents/test"] = Counter(
        {0: 500, 1: 500, 2: 500, 3: 500})
    col.positions["background-both/subtask_2_ents/test"] = Counter({0: 20, 1: 10})  # too few
    result = _check_balance(col)
    assert col.by_check[BALANCE] == 1 and result["status"] != "ok"
    [violation] = col.violations
    assert violation.startswith("background-pretrain/subtask_4_ents/test: the first baseline")
    assert "excludes chance (0.250)" in violation
    first = result["position_baselines"]["background-pretrain/subtask_4_ents/test"]["first"]
    assert first["accuracy"] == 0.2225 and first["ci95"] == [0.2048, 0.2413]
    both = result["position_baselines"]["background-both/subtask_4_ents/test"]
    assert both["first"]["accuracy"] == both["last"]["accuracy"] == 0.25


def test_a_generated_suite_has_position_baselines_at_chance(tmp_path: Path) -> None:
    from refbench.tasks.kitmus.generate.resources import load_resources
    from refbench.tasks.kitmus.generate.suite import generate_suite, make_config

    out = tmp_path / "s"
    cfg = make_config(variants=["background-pretrain"], entities=[3], splits=["test"],
                      sizes={"test": 60}, formats=["conll"], seed=42)
    generate_suite(load_resources(), out, cfg, workers=1, progress=False, probe=False)
    report = validate_suite(out, progress=False)
    assert report["ok"], report["violations"]
    group = report["position_baselines"]["background-pretrain/subtask_3_ents/test"]
    assert group["first"]["accuracy"] == group["last"]["accuracy"] == round(20 / 60, 4)
