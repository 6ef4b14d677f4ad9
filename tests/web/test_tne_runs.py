"""Issue 38: the web app carries one kind of run. A TNE run made by ``refbench tne baseline``
is an ordinary run: recorded in the store, listed by ``results ls``, attached to the TNE
dataset by what it read, its ``/runs/<id>.json`` a Result whose figures are the ones the
baseline printed and ``evaluate`` gives, and the TNE pages (dataset, run, leaderboard,
compare) read it as they read every task's runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from refbench.cli import app as cli_app
from refbench.core.commands import run_guarded
from refbench.core.result import Result
from tests.web.test_routes import key, system_ids

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "tne" / "docs.jsonl"


def cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> str:
    code = run_guarded(cli_app, [str(a) for a in args])
    got = capsys.readouterr()
    assert code == 0, got.err
    return got.out


def test_a_tne_baseline_run_is_an_ordinary_run_on_the_web(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig
    from refbench.web.runs import RunInfo

    assert not hasattr(RunInfo, "is_tne") and not hasattr(RunInfo, "is_documents")
    store, out = tmp_path / "store.sqlite", tmp_path / "runs" / "surface"
    printed = cli(capsys, "tne", "baseline", "surface", "--data", FIX, "--out", out,
                  "--store", store)
    listed = json.loads(cli(capsys, "results", "ls", "--store", store, "--json"))
    rows = listed if isinstance(listed, list) else listed["runs"]
    (row,) = rows
    assert (row["task"], row["system"]) == ("tne", "tne-baseline:surface")
    evaluated = json.loads(cli(capsys, "evaluate", "--task", "tne", "--gold", FIX, "--pred",
                               out, "--json"))
    app = create_app(ServeConfig(data=[FIX], run_dirs=[], store=store,
                                 index_dir=tmp_path / "index"))
    client = app.test_client()
    cat = app.config["CATALOG"]
    (run,) = cat.runs()
    assert run.rid == f"s{row['run_id']}" and run.source == "store"
    (ds,) = cat.datasets.values()
    assert cat.dataset_of(run) is ds and [s.label for s in cat.systems(ds)] == [
        "tne-baseline:surface"]
    web = client.get(f"/runs/{run.rid}.json").get_json()
    result = Result.from_json(web)  # a Result, read by the one reader
    assert result.task == "tne" and result.system.model == "tne-baseline:surface"
    assert result.coverage.n == result.coverage.of == 2 and not result.is_partial
    assert result.data.sha256 == Result.read(out).data.sha256
    for k in ("labeled_precision", "labeled_recall", "labeled_f1", "unlabeled_f1"):
        assert result.value(k) == evaluated[k]
    assert f"{100 * evaluated['labeled_f1']:.1f}" in printed  # the figure the baseline printed
    page = client.get(f"/runs/{run.rid}").get_data(as_text=True)
    assert "labeled F1" in page and f"{evaluated['labeled_f1']:.3f}" in page
    assert "matched by document id" not in page
    board = client.get("/leaderboard").get_data(as_text=True)
    assert "tne-baseline:surface" in board and f"{evaluated['labeled_f1']:.3f}" in board


def test_the_tne_pages_read_the_run_folders(client: Any, app: Any,
                                           world: dict[str, Any]) -> None:
    """The shared world's two TNE baseline runs: the dataset page with a system's answers, the
    run page, the leaderboard and compare all answer from the run folders."""
    k = key(app, "tne")
    ids = system_ids(app, k)
    assert set(ids) == {"adj-backward", "surface"}
    cat = app.config["CATALOG"]
    runs = [r for r in cat.runs() if r.task == "tne"]
    assert len(runs) == 2 and all(r.rid.startswith("s") for r in runs)  # no t<hash> runs
    assert {r.predictions.parent for r in runs} == set(world["tne_runs"].values())
    browse = client.get(f"/data/{k}/0?sys={ids['surface']}")
    assert browse.status_code == 200
    compare = client.get(f"/compare?data={k}&sys={ids['adj-backward']}&sys={ids['surface']}")
    body = compare.get_data(as_text=True)
    assert compare.status_code == 200 and 'id="doc-significance"' in body
    for r in runs:
        metrics = json.loads((r.predictions.parent / "metrics.json").read_text())
        assert f"{metrics['labeled_f1']:.3f}" in body  # compare's figures are the runs'
        assert client.get(f"/runs/{r.rid}").status_code == 200
