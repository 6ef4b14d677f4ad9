"""One figure: for the same predictions, ``run``, ``evaluate``, ``report`` and the web app give
the same value for every metric of every registered task. Every figure a run records (every
number, and every number inside its nested figures) must come back identical from
``evaluate`` on the run's folder; every figure ``report``'s tables print must be the run's;
the web app's leaderboard and compare pages must show the run's figures. On the tasks' tiny
fixtures always, and on the real releases where ``../shared`` is present.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scripts.regen_golden import GOLDEN

from tests.conftest import SHARED

FIX = Path(__file__).resolve().parents[1] / "fixtures"
REAL = SHARED / "data"

# One data set per registered task (a file, or a folder the task runs whole). A task added to
# the registry must add its own here: test_every_registered_task_is_covered says so.
FIXTURES: dict[str, list[Path]] = {
    "kitmus": [GOLDEN, GOLDEN / "background-pretrain" / "subtask_2_ents" / "full-text"
               / "test.v4_gold_conll"],
    "gap": [FIX / "gap" / "gap-dev.tsv"],
    "knowref": [FIX / "knowref" / "knowref_sample.json", FIX / "knowref" / "train.tsv"],
    "winograd": [FIX / "winograd" / "wsc-tiny.jsonl"],
    "altentities": [FIX / "altentities" / "books-recipes.json"],
    "tne": [FIX / "tne" / "docs.jsonl"],
    "winogender": [FIX / "winogender", FIX / "winogender" / "all_sentences.tsv"],
    "winobias": [FIX / "winobias", FIX / "winobias" / "pro_stereotyped_type1.txt.test"],
}
RELEASES: dict[str, list[Path]] = {
    "kitmus": [REAL / "kitmus-official" / "released" / "background-train" / "subtask_4_ents"
               / "full-text" / "test.v4_gold_conll.gz"],
    "gap": [REAL / "gap" / "gap-test.tsv"],
    "knowref": [REAL / "knowref" / "knowref_test.json"],
    "winograd": [REAL / "winograd" / "wsc273.jsonl"],
    "altentities": [REAL / "altentities" / "recipes" / "test.json.gz"],
    "tne": [REAL / "tne" / "test.jsonl.gz"],
    "winogender": [REAL / "winogender"],
    "winobias": [REAL / "winobias"],
}
# What a run records about itself rather than about its predictions: not figures.
BOOKKEEPING = {"model", "system", "systems", "model_fingerprint", "data", "gold", "data_sha256",
               "split", "limit", "reader_options", "n_cached", "uncached_batches", "created",
               "out_dir", "predictions", "provenance", "run_id", "run_ids", "store", "pred",
               "task", "task_version", "mode", "warnings", "ci95_methods", "cells",
               "lm_eval_task_hash", "n_missing", "n_extra", "schema", "seal"}


def figures(obj: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every number (and None) in a result, by its key path, bookkeeping left out."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if prefix == "" and key in BOOKKEEPING:
                continue
            yield from figures(value, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(obj, list | tuple):
        for k, value in enumerate(obj):
            yield from figures(value, f"{prefix}[{k}]")
    elif isinstance(obj, bool) or not isinstance(obj, str):
        yield prefix, obj


def cases(table: dict[str, list[Path]]) -> list[Any]:
    return [pytest.param(task, path, id=f"{task}-{path.name}")
            for task, paths in table.items() for path in paths]


def test_every_registered_task_is_covered() -> None:
    from refbench.core.registry import TASKS

    assert set(FIXTURES) == set(TASKS._entries) == set(RELEASES)


def run_and_score(task_name: str, data: Path, root: Path) -> tuple[dict[str, Any], Path,
                                                                   dict[str, Any]]:
    """``run`` (a choice task) or a baseline prediction file (a documents task), then
    ``evaluate`` of exactly those predictions; returns (run figures, predictions, evaluation)."""
    from refbench.runs.path import run_suite
    from refbench.runs.runner import run_model
    from refbench.runs.store import Store
    from refbench.tasks.lookup import get_task
    from refbench.tasks.scoring import evaluate_predictions

    task = get_task(task_name)
    out = root / "run"
    if task.documents is not None:
        from refbench.tasks.tne.models.baselines import BASELINES, with_oracle_prepositions
        from refbench.tasks.tne.predictions import write_predictions
        from refbench.tasks.tne.read import read_tne

        docs = list(read_tne(data))
        pred = root / "combined.jsonl"
        write_predictions(docs, [with_oracle_prepositions(d, BASELINES["combined"](d, 0))
                                 for d in docs], pred)
        ev = evaluate_predictions(task, data, [pred])
        return ev, pred, ev
    store = Store(root / "store.sqlite")
    if data.is_dir():
        run = run_suite("random", data, out, store=store, progress=False, task=task)
    else:
        run = run_model("random", data, out, store=store, progress=False, task=task)
    store.close()
    return run, out, evaluate_predictions(task, data, [out])


def same(run: dict[str, Any], ev: dict[str, Any]) -> None:
    """Every figure of the run comes back identical from evaluate (a folder result's cells
    are compared per cell: a suite's cells say its subtasks)."""
    mine, theirs = dict(figures(run)), dict(figures(ev))
    missing = sorted(set(mine) - set(theirs))
    assert not missing, f"figures run gives and evaluate does not: {missing[:10]}"
    differ = {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}
    assert not differ, f"figures that differ: {dict(list(differ.items())[:10])}"
    if run.get("cells"):
        key = ("variant", "n_entities", "file")
        cells = {tuple(c.get(k) for k in key): c for c in ev.get("cells") or []}
        for c in run["cells"]:
            other = cells.get(tuple(c.get(k) for k in key))
            assert other is not None, f"evaluate has no cell {c}"
            theirs_c = dict(figures(other))
            assert {k: v for k, v in figures(c)} == {k: theirs_c.get(k) for k, _ in figures(c)}


def reported(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from refbench.reporting.reporting import tables_for

    return [t for table in tables_for(results, ci=True) for t in table.tidy]


def in_report(run: dict[str, Any], tidy: list[dict[str, Any]]) -> None:
    """Every figure a report table prints is the run's own."""
    flat = dict(figures(run))
    cells = {(c.get("variant"), c.get("n_entities")): c for c in run.get("cells") or []}
    rows = (run.get("winobias") or {}).get("rows") or {}
    assert tidy, "the report printed no figure"
    for t in tidy:
        if t.get("kind") in ("chance", "baseline"):
            continue
        if "metric" in t and "value" in t:
            where = cells.get((t.get("variant"), t.get("n_entities")), run)
            assert where.get(t["metric"]) == t["value"] or \
                flat.get(t["metric"]) == t["value"], t
            continue
        for key, value in t.items():
            if isinstance(value, float) and not key.endswith("_ci95"):
                want = rows[t["type"]][key] if "type" in t and t["type"] in rows else run[key]
                assert want == value, (key, t)


def on_the_web(run: dict[str, Any], out: Path, data: Path, root: Path) -> None:
    """The leaderboard shows the run's figures; the compare page's overall accuracy and
    slices (computed from the predictions in the index) equal the run's."""
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig
    from refbench.web.params import connect
    from refbench.web.predictions import ensure_system
    from refbench.web.views_compare import slice_table

    config = ServeConfig(data=[data], store=root / "store.sqlite", index_dir=root / "index")
    app = create_app(config)
    assert app.test_client().get("/leaderboard").status_code == 200
    cat = app.config["CATALOG"]
    (ds,) = cat.datasets.values()
    cat.index.ensure(ds, progress=False)
    (system,) = cat.systems(ds)
    ensure_system(cat.index, ds, system)
    with app.test_request_context("/"), connect(ds) as db:
        table = slice_table(db, ds.view, [system.sid])
    overall = next(g for g in table if g["name"] == "all")
    (value, by), = overall["rows"]
    from refbench.runs.record import run_folders

    runs = [m for _, m in run_folders([out])]  # a folder run: each of its files' runs
    n = sum(int(m["n_with_gold"]) for m in runs)
    right = sum(round(float(m["accuracy"]) * int(m["n_with_gold"])) for m in runs)
    assert by[system.sid]["n"] == n and by[system.sid]["accuracy"] == pytest.approx(right / n)
    client = app.test_client()
    for r in cat.runs():  # the web's JSON of each run: its figures and coverage, unchanged
        same_on_the_web(r.metrics, client.get(f"/runs/{r.rid}.json").get_json())
    if not run.get("cells"):
        for group in table:
            for value, by in group["rows"]:
                recorded = (run.get("slices") or {}).get(group["name"], {}).get(value)
                if group["name"] != "all" and recorded is not None:
                    assert by[system.sid]["accuracy"] == pytest.approx(recorded["accuracy"])


def same_on_the_web(recorded: dict[str, Any], web: dict[str, Any]) -> None:
    """The web app's JSON of a run gives every figure the run recorded, and its coverage."""
    mine, theirs = dict(figures(recorded)), dict(figures(web))
    assert {k: theirs.get(k) for k in mine} == mine
    assert web["n"] == recorded["n"]
    if recorded.get("coverage_of") is not None:
        assert (web["coverage_of"], web["partial_by"]) == (recorded["coverage_of"],
                                                          recorded["partial_by"])


def documents_on_the_web(ev: dict[str, Any], data: Path, pred: Path) -> None:
    """A documents task: its baseline's run folder (``tne baseline``, recorded in a store) is
    an ordinary run on the web, whose JSON gives evaluate's figures of the same predictions."""
    from refbench.cli import app as cli_app
    from refbench.core.commands import run_guarded
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    root = pred.parent
    code = run_guarded(cli_app, ["tne", "baseline", "combined", "--data", str(data), "--out",
                                 str(root / "tne-run"), "--store", str(root / "st.sqlite")])
    assert code == 0
    app = create_app(ServeConfig(data=[data], store=root / "st.sqlite",
                                 index_dir=root / "index"))
    (r,) = app.config["CATALOG"].runs()
    web = app.test_client().get(f"/runs/{r.rid}.json").get_json()
    assert {k: v for k, v in figures(web) if k in dict(figures(ev))} == dict(figures(ev))


def check(task: str, data: Path, root: Path) -> None:
    from refbench.reporting.results import load_results

    run, pred, ev = run_and_score(task, data, root)
    same(run, ev)
    if pred.is_dir():
        in_report(run, reported(load_results([pred])))
        on_the_web(run, pred, data, root)
    else:
        documents_on_the_web(ev, data, pred)


@pytest.mark.parametrize(("task", "data"), cases(FIXTURES))
def test_one_figure_on_the_fixtures(task: str, data: Path, tmp_path: Path) -> None:
    check(task, data, tmp_path)


@pytest.mark.parametrize(("task", "data"), cases(RELEASES))
def test_one_figure_on_the_real_releases(task: str, data: Path, tmp_path: Path) -> None:
    if not data.exists():
        pytest.skip(f"{data} is absent")
    check(task, data, tmp_path)


@pytest.mark.parametrize(("task", "data"), [
    pytest.param(t, p, id=f"{t}-{p.name}") for t, paths in FIXTURES.items() for p in paths
    if p.is_file() and t not in ("tne", "kitmus")])
def test_one_figure_of_a_partial_run_on_the_web(task: str, data: Path, tmp_path: Path) -> None:
    """A ``--limit`` run: the web app's JSON gives the figure ``run`` printed, over the
    instances it covers, with its coverage (n of N, by --limit), and the leaderboard lists it
    apart as "partial, n of N"."""
    from refbench.runs.record import RunSettings
    from refbench.runs.runner import run_model
    from refbench.runs.store import Store
    from refbench.tasks.choices import read_choices
    from refbench.tasks.lookup import get_task
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    store = Store(tmp_path / "store.sqlite")
    total = sum(1 for _ in read_choices(data, task=get_task(task)))
    limit = total - 1  # the first instances, all but one
    run = run_model(RunSettings("random", limit=limit), data, tmp_path / "run", store=store,
                    progress=False, task=get_task(task))
    store.close()
    app = create_app(ServeConfig(data=[data], store=tmp_path / "store.sqlite",
                                 index_dir=tmp_path / "index"))
    client = app.test_client()
    (r,) = app.config["CATALOG"].runs()
    web = client.get(f"/runs/{r.rid}.json").get_json()
    same_on_the_web(run, web)
    assert (web["n"], web["coverage_of"], web["partial_by"]) == (limit, total, ["--limit"])
    assert web["accuracy"] == run["accuracy"]
    board = client.get("/leaderboard").get_data(as_text=True)
    assert f"partial, {limit:,} of {total:,}" in board
