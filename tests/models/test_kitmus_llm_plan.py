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
