"""benchmarks/kitmus_llm.py --dry-run: the protocol's plan, with no model loaded (what a GPU
run of a bigger model would do), and its refusals of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

SCRIPT = ROOT / "benchmarks" / "kitmus_llm.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, check=False, cwd=ROOT)


def test_dry_run_plans_the_whole_protocol(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    from benchmarks.kitmus_llm import VARIANTS

    for v in VARIANTS:
        for n in (2, 3, 4):
            folder = suite / v / f"subtask_{n}_ents"
            folder.mkdir(parents=True)
            (folder / "test.jsonl").write_text("")
    r = _run("--suite", str(suite), "--dry-run", "--device", "cuda", "--model", "HF_DIR",
             "--n", "396")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["model"] == "llm-loglik:HF_DIR" and got["device"] == "cuda" and got["n"] == 396
    runs = got["runs"]
    # 24 subtasks; 8 x 2 question templates; ablations: both and entity everywhere, the
    # background sentence only where the text states it (6 of 8 variants)
    assert len(runs) == 24 + 16 + (16 + 6)
    assert len({r["name"] for r in runs}) == len(runs)
    assert runs[0] == {"name": "sub-background-pretrain-4", "variant": "background-pretrain",
                       "entities": 4, "template": "substitution", "ablate": "none",
                       "data": str(suite / "background-pretrain" / "subtask_4_ents"
                                   / "test.jsonl")}
    assert not any(r["ablate"] == "background" and "pretrain" in r["variant"] for r in runs)


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    r = _run("--suite", str(tmp_path), "--dry-run")
    assert r.returncode == 2 and "no such test split" in r.stderr and "Traceback" not in r.stderr
    r = _run("--suite", str(tmp_path), "--n", "50", "--dry-run")
    assert r.returncode == 2 and "multiple of 12" in r.stderr


def test_an_ablation_is_paired_with_its_full_text_run_and_tabled(tmp_path: Path) -> None:
    """Each ablation is tested against the full-text run of its subtask, instance by
    instance (McNemar on the discordant pairs), and the markdown tables show both."""
    import shutil
    from argparse import Namespace

    from benchmarks.kitmus_llm import Planned, ablation_tests, markdown, summary
    from scripts.regen_golden import GOLDEN

    from refbench.tasks.choices import read_choices

    data = tmp_path / "suite" / "background-pretrain" / "subtask_4_ents" / "test.jsonl"
    data.parent.mkdir(parents=True)
    shutil.copy(GOLDEN / "background-pretrain" / "subtask_2_ents" / "test.jsonl", data)
    gold = [inst.gold for inst in read_choices(data)]
    assert len(gold) == 2 and None not in gold
    full = Planned("sub-background-pretrain-4", "background-pretrain", 4, "substitution", "none")
    abl = Planned("abl-entity-background-pretrain-4", "background-pretrain", 4, "substitution",
                  "entity")
    for p, answers in ((full, gold), (abl, [gold[0], 1 - gold[1]])):
        (tmp_path / "runs" / p.name).mkdir(parents=True)
        (tmp_path / "runs" / p.name / "predictions.jsonl").write_text(
            "".join(json.dumps({"id": str(k), "answer": a}) + "\n"
                    for k, a in enumerate(answers)))
    results = {full.name: {"pronoun_accuracy": 1.0, "n": 2,
                           "ci95": {"pronoun_accuracy": [1.0, 1.0]}},
               abl.name: {"pronoun_accuracy": 0.5, "n": 2,
                          "ci95": {"pronoun_accuracy": [0.0, 1.0]}}}
    args = Namespace(suite=tmp_path / "suite", runs=tmp_path / "runs", n=2)
    tests = ablation_tests([full, abl], results, args)
    assert tests == {abl.name: {"against": full.name, "n": 2, "full": 1.0, "ablated": 0.5,
                                "diff": 0.5, "diff_ci95": tests[abl.name]["diff_ci95"],
                                "only_full": 1, "only_ablated": 0, "mcnemar_p": 1.0}}
    table = markdown({**summary([full, abl], results), "ablation_tests": tests})
    row = next(line for line in table.splitlines()
               if line.startswith("| background-pretrain |") and "(p=" in line)
    assert "| 1.000 [1.00, 1.00] |" in row and "0.500 [0.00, 1.00] (p=1) |" in row
