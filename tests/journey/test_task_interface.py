"""A new benchmark is one folder plus one registry line: a throwaway task (``dummy_task/``,
registered here for the test's duration) flows through every layer with no other edit: format
sniffing, ``run`` (model ``first``), ``evaluate``, ``report``, ``ls`` and the web app's dataset,
instance and leaderboard pages (its own instance template found through the task)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from refbench.core.registry import TASKS, Entry

LINES = [
    {"dummy_id": "d1", "text": "The cup fell off the table because _ was wobbly.",
     "choices": ["the cup", "the table"], "label": 1, "genre": "home"},
    {"dummy_id": "d2", "text": "Ann thanked Bea because _ had helped.",
     "choices": ["Ann", "Bea"], "label": 1, "genre": "people"},
    {"dummy_id": "d3", "text": "The dog chased the cat until _ got tired.",
     "choices": ["the dog", "the cat"], "label": 0, "genre": "home"},
]


@pytest.fixture()
def dummy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """The one registry line, added for this test only; returns a data file."""
    entries = dict(TASKS._entries)
    entries["dummyref"] = Entry("dummyref", "tests.journey.dummy_task.task:TASK",
                                "a throwaway Winograd-like task")
    monkeypatch.setattr(TASKS, "_entries", entries)
    data = tmp_path / "dummy-test.jsonl"
    data.write_text("".join(json.dumps(x) + "\n" for x in LINES), encoding="utf-8")
    yield data


def test_dummy_task_flows_through_every_layer(dummy: Path, tmp_path: Path) -> None:
    from refbench.cli import app
    from refbench.reporting.reporting import build_tables
    from refbench.reporting.results import load_results
    from refbench.runs.runner import run_model
    from refbench.tasks.choices import infer_task
    from refbench.tasks.lookup import get_task
    from refbench.tasks.scoring import evaluate_predictions

    assert infer_task(dummy).name == "dummyref"
    out = tmp_path / "run"
    m = run_model("first", dummy, out)
    assert (m["task"], m["n"], m["split"]) == ("dummyref", 3, "test")
    assert m["accuracy"] == pytest.approx(1 / 3)  # "first" is right on d3 only
    assert m["slices"] == {"genre": {"home": {"n": 2, "accuracy": 0.5},
                                     "people": {"n": 1, "accuracy": 0.0}}}
    r = evaluate_predictions(get_task("dummyref"), dummy, [out])
    assert r["accuracy"] == m["accuracy"] and r["slices"] == m["slices"]
    table = build_tables(load_results([out]))
    assert "DummyRef results" in table and "0.333" in table

    runner = CliRunner()
    listed = runner.invoke(app, ["ls", "tasks"])
    assert listed.exit_code == 0 and "dummyref" in listed.output
    cli = runner.invoke(app, ["evaluate", "--task", "dummyref", "--gold", str(dummy),
                              "--pred", str(out), "--json"])
    assert cli.exit_code == 0, cli.output
    assert json.loads(cli.output)["accuracy"] == pytest.approx(1 / 3)


def test_dummy_task_in_the_web_app(dummy: Path, tmp_path: Path) -> None:
    from refbench.runs.runner import run_model
    from refbench.runs.store import Store
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    store = Store(tmp_path / "store" / "results.sqlite")
    run_model("first", dummy, tmp_path / "run", store=store)
    app = create_app(ServeConfig(data=[dummy], store=store.path))
    client = app.test_client()
    home = client.get("/").get_data(as_text=True)
    key = next(k for k in app.config["CATALOG"].datasets)
    assert "dummy-test.jsonl" in home
    page = client.get(f"/data/{key}")
    assert page.status_code == 200 and "genre" in page.get_data(as_text=True)
    inst = client.get(f"/data/{key}/0")
    text = inst.get_data(as_text=True)
    assert inst.status_code == 200
    assert "DummyRef page d1" in text  # the task's own template, found through the task
    assert "the table" in text and "first" in text  # candidates and the system's answer
    board = client.get("/leaderboard").get_data(as_text=True)
    assert "dummyref" in board
