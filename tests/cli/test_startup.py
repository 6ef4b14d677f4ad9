"""Start-up hygiene: the everyday commands import nothing they do not use.

Checked by module name in a fresh interpreter (what ``sys.modules`` holds when the command
has finished), never by time: ``--help``, ``ls``, ``evaluate`` and ``report`` must not load a
deep-learning stack, spaCy, plotting, the Hugging Face or lm-eval libraries, the web server or
the cluster scheduler, nor every task's module.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

HEAVY = ("torch", "transformers", "spacy", "matplotlib", "datasets", "lm_eval", "flask",
         "werkzeug", "dask", "distributed", "statsmodels", "pandas", "scipy", "sklearn",
         "sentence_transformers", "requests", "pooch")
TINY = ROOT / "tests" / "golden" / "kitmus-tiny" / "background-pretrain" / "subtask_2_ents" \
    / "task-text-only"

PROBE = """
import json, sys
sys.argv = ["refbench", *json.loads(sys.argv[1])]
code = 0
try:
    from refbench.cli import main
    main()
except SystemExit as exc:
    code = exc.code or 0
print("MODULES=" + json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def loaded(*args: str, cwd: Path) -> tuple[int, set[str]]:
    """The exit code of ``refbench ARGS`` and the top-level modules it had imported."""
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    result = subprocess.run([sys.executable, "-c", PROBE, json.dumps(list(args))],
                            capture_output=True, text=True, cwd=cwd, env=env, check=False)
    line = next(x for x in result.stderr.splitlines() if x.startswith("MODULES="))
    found = json.loads(line.removeprefix("MODULES="))
    return found["code"], {m.split(".")[0] for m in found["modules"]} | set(found["modules"])


@pytest.mark.parametrize("args", [("--help",), ("ls",), ("ls", "tasks"), ("report", "--help"),
                                  ("evaluate", "--help")])
def test_help_and_listings_stay_light(args: tuple[str, ...], tmp_path: Path) -> None:
    code, modules = loaded(*args, cwd=tmp_path)
    assert code == 0
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))


def test_evaluate_and_report_stay_light(tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    code, modules = loaded("evaluate", "--task", "kitmus", "--gold",
                           str(TINY / "test.v4_gold_conll"), "--pred",
                           str(TINY / "test.jsonlines"), "--out", str(out), cwd=tmp_path)
    assert code == 0 and out.is_file()
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))
    # only the task scored is imported, not every task's package
    other_tasks = {"gap", "knowref", "winograd", "altentities", "tne", "winogender", "winobias"}
    assert not {f"refbench.tasks.{t}" for t in other_tasks} & modules
    # a perfect run's intervals need no resampling (so no numpy), and a task named by a
    # refbench name is found without reading every installed distribution's entry points
    assert not {"numpy", "importlib.metadata"} & modules
    code, modules = loaded("report", str(out), cwd=tmp_path)
    assert code == 0
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))


def test_task_commands_still_listed_and_run(tmp_path: Path) -> None:
    """Task commands are loaded when asked for: listed by --help, found by name."""
    from tests.conftest import run_cli

    result = run_cli("--help", cwd=tmp_path)
    assert result.returncode == 0 and "kitmus" in result.stdout and "winobias" in result.stdout
    result = run_cli("kitmus", "--help", cwd=tmp_path)
    assert result.returncode == 0 and "generate" in result.stdout
    result = run_cli("serve", "--help", cwd=tmp_path)
    assert result.returncode == 0 and "--tne-model" in result.stdout
