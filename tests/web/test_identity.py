"""What a figure is *of*: datasets by their content and split, systems by their model spec and
fingerprint (or the name given), runs by both; never a path as typed or a folder's name. One
test per finding of the identity issue."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from scripts.regen_golden import GOLDEN, TINY

from tests.conftest import run_cli

SUBTASK = Path("background-pretrain") / "subtask_2_ents" / "test.jsonl"
FIX = Path(__file__).resolve().parents[1] / "fixtures"


def ok(*args: str, cwd: Path | None = None) -> str:
    r = run_cli(*args, cwd=cwd)
    assert r.returncode == 0, f"{args}: {r.stderr}"
    return r.stdout


def other_suite(out: Path) -> Path:
    """A suite laid out like the golden one, with the same file names and other content."""
    from refbench.tasks.kitmus.generate.resources import load_resources
    from refbench.tasks.kitmus.generate.suite import generate_suite, make_config

    cfg = make_config(variants=TINY["variants"], entities=TINY["entities"],
                      sizes=TINY["sizes"], seed=TINY["seed"] + 1)
    generate_suite(load_resources(), out, cfg, workers=1, overwrite=True, progress=False)
    return out


def app_for(data: list[Path], store: Path, root: Path, runs: list[Path] | None = None) -> Any:
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    return create_app(ServeConfig(data=data, run_dirs=runs or [], store=store,
                                  index_dir=root / "index"))


def test_a_run_is_attached_by_content_not_by_a_path_as_typed(tmp_path: Path) -> None:
    """Finding 3: a run made with a relative path, served from another directory that holds
    another suite of the same name, stays with the suite it read."""
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(GOLDEN, a / "suite")
    other_suite(b / "suite")
    store = tmp_path / "s.sqlite"
    ok("run", "--model", "first", "--data", str(Path("suite") / SUBTASK), "--out", "run",
       "--store", str(store), "--quiet", cwd=a)
    metrics = json.loads((a / "run" / "metrics.json").read_text())
    assert metrics["data"] == str((a / "suite" / SUBTASK).resolve())  # resolved, for people
    assert len(metrics["data_sha256"]) == 64
    # served from b, naming b's suite: the run is not b's
    app = app_for([b / "suite"], store, tmp_path / "wb")
    cat = app.config["CATALOG"]
    served = next(d for d in cat.datasets.values() if d.path == (b / "suite").resolve())
    assert cat.systems(served) == []
    (run,) = cat.runs()
    assert cat.dataset_of(run).path == (a / "suite").resolve()  # the suite it read
    # moved: the run folder elsewhere, given with --runs, still finds its suite
    moved = tmp_path / "elsewhere" / "run"
    shutil.move(str(a / "run"), moved)
    app = app_for([a / "suite", b / "suite"], tmp_path / "empty.sqlite", tmp_path / "wm",
                  runs=[moved])
    cat = app.config["CATALOG"]
    (run,) = cat.runs()
    assert cat.dataset_of(run).path == (a / "suite").resolve()


def test_a_run_whose_data_changed_is_not_attached_to_it(tmp_path: Path) -> None:
    data = tmp_path / "wsc.jsonl"
    shutil.copy(FIX / "winograd" / "wsc-tiny.jsonl", data)
    store = tmp_path / "s.sqlite"
    ok("run", "--model", "first", "--data", str(data), "--out", str(tmp_path / "r"),
       "--store", str(store), "--quiet")
    data.write_text(data.read_text().replace("piano", "cello"))
    app = app_for([data], store, tmp_path)
    cat = app.config["CATALOG"]
    (ds,) = cat.datasets.values()
    assert cat.systems(ds) == []
    assert any("no longer holds the data the run read" in why for _, why in cat.skipped)


def test_evaluate_never_averages_two_systems(tmp_path: Path) -> None:
    """Finding 2: two different systems are not averaged as if they were seeds of one."""
    gold = GOLDEN / SUBTASK
    for model in ("first", "last"):
        ok("run", "--model", model, "--data", str(gold), "--out", str(tmp_path / model),
           "--no-store", "--quiet")
    mixed = run_cli("evaluate", "--task", "kitmus", "--gold", str(gold), "--pred",
                    str(tmp_path / "first"), str(tmp_path / "last"))
    assert mixed.returncode == 2 and "of 2 systems" in mixed.stderr
    assert "Traceback" not in mixed.stderr
    # issue 38: two models are never merged under one name, not even one given with --system
    named = run_cli("evaluate", "--task", "kitmus", "--gold", str(gold), "--pred",
                    str(tmp_path / "first"), str(tmp_path / "last"), "--system", "both")
    assert named.returncode == 2 and "model first" in named.stderr \
        and "model last" in named.stderr


def test_a_folder_run_is_named_by_its_model_not_its_folder(tmp_path: Path) -> None:
    """Finding 6 (and 1): evaluate on a folder run's --out names the system by its spec, and
    scores each file of the release under its own name."""
    out = tmp_path / "wb-embedding"
    ok("run", "--model", "first", "--data", str(FIX / "winobias"), "--out", str(out),
       "--no-store", "--quiet")
    run = json.loads((out / "results.json").read_text())
    ev = json.loads(ok("evaluate", "--task", "winobias", "--gold", str(FIX / "winobias"),
                       "--pred", str(out), "--json"))
    assert ev["system"] == run["system"] == "first"
    assert "" not in ev["coref_by_file"] and len(ev["coref_by_file"]) == 4
    assert ev["conll_f1"] == run["conll_f1"] and ev["conll_f1_by_type"] == \
        run["conll_f1_by_type"] != {}


def _suite_runs(tmp_path: Path) -> tuple[Path, Any]:
    """knowledge-match on one subtask, random on all four, in one store."""
    store = tmp_path / "s.sqlite"
    ok("run", "--model", "random", "--data", str(GOLDEN), "--out", str(tmp_path / "rnd"),
       "--store", str(store), "--quiet")
    ok("run", "--model", "knowledge-match", "--data", str(GOLDEN / SUBTASK), "--out",
       str(tmp_path / "km"), "--store", str(store), "--quiet")
    return store, app_for([GOLDEN], store, tmp_path)


def test_rankings_know_coverage(tmp_path: Path) -> None:
    """Finding 4: a system scored on one subtask is ranked with one scored on all four over the
    subtask both have, and each row says how many it has; compare bolds no cell whose n
    differs between the systems."""
    from refbench.web.params import connect
    from refbench.web.predictions import ensure_system
    from refbench.web.views_board import _folder_table
    from refbench.web.views_compare import slice_table

    _, app = _suite_runs(tmp_path)
    cat = app.config["CATALOG"]
    (ds,) = [d for d in cat.datasets.values() if d.is_folder]
    systems = cat.systems(ds)
    table = _folder_table(ds, systems)
    assert (table["n_columns"], table["n_common"]) == (4, 1)
    rows = {r["system"].model: r for r in table["rows"]}
    assert rows["knowledge-match"]["coverage"] == 1 and rows["random"]["coverage"] == 4
    only = next(c for c in rows["random"]["cells"] if c and c["rid"]
                for km in [rows["knowledge-match"]["cells"]]
                if km[rows["random"]["cells"].index(c)])
    assert rows["random"]["common_mean"] == only["value"]
    board = app.test_client().get("/leaderboard").get_data(as_text=True)
    assert "1 / 4" in board and "4 / 4" in board and "mean (common)" in board
    cat.index.ensure(ds, progress=False)
    for s in systems:
        ensure_system(cat.index, ds, s)
    with app.test_request_context("/"), connect(ds) as db:
        groups = slice_table(db, ds.view, [s.sid for s in systems])
    overall = next(g for g in groups if g["name"] == "all")
    assert "all" in overall["unequal"] and overall["best"]["all"] is None
    page = app.test_client().get(f"/compare?data={ds.key}&sys={systems[0].sid}"
                                 f"&sys={systems[1].sid}").get_data(as_text=True)
    assert "unequal n" in page


def test_documents_runs_stay_off_unlabelled_data_and_counts_add_up(tmp_path: Path) -> None:
    """Finding 5: a TNE baseline run on the labelled release is attached to it only (never to
    the unlabelled copy of the same documents: it did not read that file), the leaderboard
    answers, and the home page counts each run once. Issue 38: the runs are ordinary run
    folders of ``tne baseline`` in the store, attached by data identity."""
    from refbench.cli import app as cli_app
    from refbench.core.commands import run_guarded

    labelled = FIX / "tne" / "docs.jsonl"
    unlabelled = tmp_path / "test_unlabeled.jsonl"
    lines = [json.loads(x) for x in labelled.read_text().splitlines() if x.strip()]
    unlabelled.write_text("".join(json.dumps({**d, "np_relations": None}) + "\n"
                                  for d in lines))
    store = tmp_path / "s.sqlite"
    for name in ("combined", "surface"):
        assert run_guarded(cli_app, ["tne", "baseline", name, "--data", str(labelled), "--out",
                                     str(tmp_path / "runs" / name), "--store", str(store)]) == 0
    app = app_for([labelled, unlabelled], store, tmp_path)
    client = app.test_client()
    cat = app.config["CATALOG"]
    for ds in cat.datasets.values():
        cat.index.ensure(ds, progress=False)
    by_name = {d.path.name: d for d in cat.datasets.values()}
    assert len(cat.systems(by_name["docs.jsonl"])) == 2
    assert cat.systems(by_name["test_unlabeled.jsonl"]) == []
    assert client.get("/leaderboard").status_code == 200
    home = client.get("/").get_data(as_text=True)
    assert "<strong>2</strong> of 2 runs" in home


def test_a_bare_tne_prediction_file_is_not_a_run(tmp_path: Path) -> None:
    """Issue 38: the web app carries one kind of run. A TNE prediction file given with
    ``--runs`` (the leaderboard export, or a file written before TNE runs were run folders)
    is no ``t<hash>`` run: the home page lists it as holding no run folders."""
    from refbench.tasks.tne.models.baselines import BASELINES, with_oracle_prepositions
    from refbench.tasks.tne.predictions import write_predictions
    from refbench.tasks.tne.read import read_tne

    labelled = FIX / "tne" / "docs.jsonl"
    docs = list(read_tne(labelled))
    preds = tmp_path / "preds"
    write_predictions(docs, [with_oracle_prepositions(d, BASELINES["surface"](d, 0))
                             for d in docs], preds / "good.jsonl")
    app = app_for([labelled], tmp_path / "s.sqlite", tmp_path, runs=[preds])
    cat = app.config["CATALOG"]
    assert cat.runs() == []
    assert cat.systems(next(iter(cat.datasets.values()))) == []
    home = app.test_client().get("/").get_data(as_text=True)
    assert "no run folders" in home


def test_bias_benchmarks_are_first_class(tmp_path: Path) -> None:
    """Finding 7: named leaderboard columns with Diff, no raw path as a header, the dataset page
    opening on the split that has runs, fractions, and intervals in report --ci."""
    store = tmp_path / "s.sqlite"
    for folder in ("winobias", "winogender"):
        ok("run", "--model", "first", "--data", str(FIX / folder), "--out",
           str(tmp_path / folder), "--store", str(store), "--quiet")
    app = app_for([FIX / "winobias", FIX / "winogender"], store, tmp_path)
    client = app.test_client()
    board = client.get("/leaderboard").get_data(as_text=True)
    assert ">Pro<" in board and ">Anti<" in board and ">Diff<" in board
    assert "all_sentences.tsv</th>" not in board and ">0<" not in board
    cat = app.config["CATALOG"]
    wb = next(d for d in cat.datasets.values() if d.task.name == "winobias")
    opened = client.get(f"/data/{wb.key}")
    assert opened.status_code == 302 and "f.split=test" in opened.headers["Location"]
    text = ok("report", str(tmp_path / "winobias"), "--ci")
    assert "%" not in text.split("\n\n")[0] and "0.250 [" in text and "Newcombe" in text
    wg = ok("report", str(tmp_path / "winogender"), "--ci")
    assert "Wilson" in wg and "[" in wg.split("| first")[1].split("\n")[0]


def test_intervals_against_hand_worked_numbers() -> None:
    from refbench.metrics.intervals import newcombe_difference, pearson_interval, wilson

    lo, hi = wilson(198, 396)  # p = 0.5: 0.5 -/+ 1.96 sqrt(.25/396 + 1.96^2/(4*396^2)) / 1.0097
    assert (lo, hi) == (pytest.approx(0.4510, abs=1e-4), pytest.approx(0.5490, abs=1e-4))
    lo, hi = newcombe_difference(0.5, 396, 2 / 396, 396)  # 0.49495 -/+ the Wilson sides
    assert (lo, hi) == (pytest.approx(0.4442, abs=1e-4), pytest.approx(0.5441, abs=1e-4))
    lo, hi = pearson_interval(0.5, 60)  # tanh(atanh(.5) -/+ 1.96 / sqrt(57))
    assert (lo, hi) == (pytest.approx(0.2819, abs=1e-4), pytest.approx(0.6690, abs=1e-4))
    assert wilson(0, 0) is None and pearson_interval(0.5, 3) is None
