"""Runs from the store and from folders, and how they become systems."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from refbench.web.datasets import open_dataset
from refbench.web.runs import all_runs, folder_runs, resolve_data, systems_for


def test_a_run_in_the_store_and_in_a_folder_counts_once(world: dict[str, Any]) -> None:
    store = world["config"].store
    runs, problems = all_runs(store, [world["runs"]])
    preds = [r.predictions for r in runs]
    assert len(preds) == len(set(preds)) and not problems
    assert all(r.source == "store" for r in runs)
    alone, _ = folder_runs([world["runs"]])
    assert {r.predictions for r in alone} == set(preds)


def test_suite_runs_are_one_system_and_the_latest_run_per_file_wins(
        world: dict[str, Any], tmp_path: Path) -> None:
    from refbench.runs.runner import run_model

    suite = open_dataset(world["suite"])
    runs, _ = all_runs(world["config"].store, [])
    systems = {s.label: s for s in systems_for(suite, runs)}
    assert set(systems) == {"first", "last"}
    f2 = world["suite"] / "background-pretrain" / "subtask_3_ents" / "test.jsonl"
    extra = []
    for n, f in enumerate([f2, f2]):
        run_model("first", f, tmp_path / f"again{n}", progress=False)
        extra.append(tmp_path / f"again{n}")
    runs, _ = all_runs(world["config"].store, extra)
    first = next(s for s in systems_for(suite, runs) if s.label == "first")
    assert sorted(r.data.name for r in first.runs if r.data) == ["test.jsonl", "test.jsonl"]
    assert len(first.runs) == 2  # subtask_2 (store) + subtask_3 (the later of the two folders)


def test_relative_data_paths_resolve_from_the_run_folder(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.jsonl").write_text("{}\n")
    run = tmp_path / "runs" / "r1"
    run.mkdir(parents=True)
    assert resolve_data("data/x.jsonl", run) == (tmp_path / "data" / "x.jsonl").resolve()
    assert resolve_data("data/missing.jsonl", run) is None


def test_bad_run_folders_are_reported_not_fatal(tmp_path: Path, world: dict[str, Any]) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "predictions.jsonl").write_text("")
    (bad / "metrics.json").write_text(json.dumps({"no": "model"}))
    good = tmp_path / "good"
    shutil.copytree(world["runs"] / "first-gap", good)
    runs, skipped = folder_runs([bad, good, tmp_path / "absent"])
    assert [r.model for r in runs] == ["first"]
    assert {Path(p).name for p, _ in skipped} == {"metrics.json", "bad", "absent"}
