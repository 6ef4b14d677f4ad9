"""Plugins: another distribution adds a benchmark and a model through entry points, with no edit
to refbench. ``tests/fixtures/plugin/`` is such a distribution as ``pip install`` would leave it
(a package and its ``.dist-info`` with ``entry_points.txt``), beside a broken one whose entry
points name a module that does not exist. Put on the path, the plugin's benchmark and model go
through ``ls``, ``run``, ``evaluate``, ``report``, ``serve`` and both exports; the broken one
is one error line where it is named and never stops another command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PLUGIN

LINES = [
    {"pid": "p1", "sentence": "The cup fell off the table because _ was wobbly.",
     "options": ["the cup", "the table"], "gold": 1, "kind": "home"},
    {"pid": "p2", "sentence": "Ann thanked Bea because _ had helped.",
     "options": ["Ann", "Bea"], "gold": 1, "kind": "people"},
    {"pid": "p3", "sentence": "The dog chased the cat until _ got tired.",
     "options": ["the dog", "the cat"], "gold": 0, "kind": "home"},
]


def plugin_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real command line with the plugin distributions installed (on the path)."""
    path = os.pathsep.join(p for p in (str(PLUGIN), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=path)
    return subprocess.run([sys.executable, "-c", "from refbench.cli import main; main()", *args],
                          capture_output=True, text=True, cwd=cwd, env=env, check=False)


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    path = tmp_path / "plug-test.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in LINES), encoding="utf-8")
    return path


def test_ls_says_where_each_entry_comes_from() -> None:
    out = plugin_cli("ls", "--json")
    assert out.returncode == 0, out.stderr
    listed = json.loads(out.stdout)
    tasks = {row["name"]: row for row in listed["tasks"]}
    models = {row["name"]: row for row in listed["models"]}
    assert tasks["plugref"]["origin"] == "refbench-plugin-demo 0.1.0"
    assert tasks["plugref"]["version"] == 2 and "plugin" in tasks["plugref"]["summary"]
    assert tasks["kitmus"]["origin"] == "refbench" and tasks["kitmus"]["version"] == 1
    assert models["always-second"]["origin"] == "refbench-plugin-demo 0.1.0"
    broken = tasks["broken-task"]["error"]
    assert "refbench-broken-plugin 0.2.0" in broken and "ModuleNotFoundError" in broken
    text = plugin_cli("ls", "tasks")
    assert text.returncode == 0 and "plugref.v2" in text.stdout
    assert "[from refbench-plugin-demo 0.1.0]" in text.stdout


def test_a_plugin_model_and_benchmark_run_score_and_report(data: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run = plugin_cli("run", "--model", "always-second", "--data", str(data), "--out",
                     str(tmp_path / "run"), "--store", str(store), "--json")
    assert run.returncode == 0, run.stderr
    m = json.loads(run.stdout)
    assert (m["task"], m["task_version"], m["n"]) == ("plugref", 2, 3)
    assert m["accuracy"] == pytest.approx(2 / 3)
    assert m["slices"]["kind"] == {"home": {"n": 2, "accuracy": 0.5},
                                   "people": {"n": 1, "accuracy": 1.0}}
    # a version that is not the installed one is refused by name
    wrong = plugin_cli("evaluate", "--task", "plugref.v1", "--gold", str(data), "--pred",
                       str(tmp_path / "run"))
    assert wrong.returncode == 2 and "version 2" in wrong.stderr
    ev = plugin_cli("evaluate", "--task", "plugref.v2", "--gold", str(data), "--pred",
                    str(tmp_path / "run"), "--json")
    assert ev.returncode == 0, ev.stderr
    assert json.loads(ev.stdout)["accuracy"] == m["accuracy"]
    rep = plugin_cli("report", str(tmp_path / "run"))
    assert rep.returncode == 0 and "PlugRef results" in rep.stdout and "0.667" in rep.stdout


def test_a_plugin_benchmark_exports(data: Path, tmp_path: Path) -> None:
    hf = plugin_cli("export", "hf", str(data), "--out", str(tmp_path / "hf"), "--json")
    assert hf.returncode == 0, hf.stderr
    assert json.loads(hf.stdout)["license"] == "cc-by-4.0"
    card = (tmp_path / "hf" / "README.md").read_text(encoding="utf-8")
    assert "PlugRef (plugin)" in card and "A benchmark that exists to test plugins" in card
    lm = plugin_cli("export", "lm-eval", "--data", str(data), "--out", str(tmp_path / "lm"),
                    "--json")
    assert lm.returncode == 0, lm.stderr
    doc = json.loads((tmp_path / "lm" / "refbench_plug_test.jsonl").read_text().splitlines()[0])
    assert doc["label"] == 1 and doc["target"] == " was wobbly."


def test_a_plugin_benchmark_in_the_web_app(plugins_installed: None, data: Path,
                                          tmp_path: Path) -> None:
    from refbench.runs.runner import run_model
    from refbench.runs.store import Store
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    store = Store(tmp_path / "s.sqlite")
    run_model("always-second", data, tmp_path / "run", store=store, progress=False)
    app = create_app(ServeConfig(data=[data], store=store.path, index_dir=tmp_path / "i"))
    client = app.test_client()
    assert "plug-test.jsonl" in client.get("/").get_data(as_text=True)
    key = next(iter(app.config["CATALOG"].datasets))
    assert client.get(f"/data/{key}").status_code == 200
    page = client.get(f"/data/{key}/0").get_data(as_text=True)
    assert "PlugRef page p1" in page  # the plugin's own template, found in its folder
    board = client.get("/leaderboard")
    assert board.status_code == 200 and "always-second" in board.get_data(as_text=True)


def test_a_broken_plugin_is_one_line_and_stops_nothing_else(data: Path, tmp_path: Path
                                                             ) -> None:
    bad = plugin_cli("run", "--model", "broken-model", "--data", str(data), "--out",
                     str(tmp_path / "run"), "--no-store")
    lines = bad.stderr.strip().splitlines()
    assert bad.returncode == 1 and "Traceback" not in bad.stderr  # the plugin's fault: 1
    assert lines[-1].startswith("error E600: plugin refbench-broken-plugin 0.2.0: entry point "
                                "broken-model")
    good = plugin_cli("run", "--model", "first", "--data", str(data), "--out",
                      str(tmp_path / "run"), "--no-store", "--json")
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["task"] == "plugref"
    named = plugin_cli("evaluate", "--task", "broken-task", "--gold", str(data), "--pred",
                       str(tmp_path / "run"))
    assert named.returncode == 1 and "refbench-broken-plugin" in named.stderr
    assert "Traceback" not in named.stderr
