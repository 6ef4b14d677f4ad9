"""Issue 38 in the web app: partial results are listed apart from the ranking (defect 2), the
name a run was given is shown and found everywhere and every hidden run says why (defect 6),
a run on any file of a served release folder is attached to it (defect 7)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from scripts.regen_golden import GOLDEN

from tests.conftest import SHARED, needs_shared
from tests.web.conftest import FIX

SUBTASK = GOLDEN / "background-pretrain" / "subtask_2_ents" / "test.jsonl"
WSC = FIX.parent / "winograd" / "wsc-tiny.jsonl"
OFFICIAL = SHARED / "data" / "kitmus-official" / "released"


def _app(data: list[Path], root: Path, runs: list[tuple[str, Path, dict[str, Any]]]) -> Any:
    from refbench.runs.path import run_suite
    from refbench.runs.record import RunSettings
    from refbench.runs.runner import run_model
    from refbench.runs.store import Store
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    store = Store(root / "results.sqlite")
    for k, (model, file, options) in enumerate(runs):
        settings = RunSettings(model, **options)
        if file.is_dir():
            run_suite(settings, file, root / f"r{k}", store=store, progress=False)
        else:
            run_model(settings, file, root / f"r{k}", store=store, progress=False)
    store.close()
    return create_app(ServeConfig(data=data, run_dirs=[], store=root / "results.sqlite",
                                  index_dir=root / "index"))


def text(client: Any, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return str(response.get_data(as_text=True))


def test_a_limit_run_is_listed_apart_from_the_suite_ranking(tmp_path: Path) -> None:
    """Defect 2: a ``--limit`` run on one subtask file beside complete suite runs adds no
    phantom "None / 0" column, leaves the ranking over every cell, and is listed as partial."""
    from refbench.web.views_board import _folder_table

    app = _app([GOLDEN], tmp_path, [("first", GOLDEN, {}), ("random", GOLDEN, {}),
                                    ("last", SUBTASK, {"limit": 1})])
    cat = app.config["CATALOG"]
    (ds,) = [d for d in cat.datasets.values() if d.is_folder]
    table = _folder_table(ds, cat.systems(ds))
    assert (table["n_columns"], table["n_common"]) == (4, 4)
    assert [r["system"].label for r in table["rows"]] and \
        {r["system"].label for r in table["rows"]} == {"first", "random"}
    (partial,) = table["partial"]
    assert partial["system"].label == "last" and (partial["n"], partial["total"]) == (1, 2)
    board = text(app.test_client(), "/leaderboard")
    assert "None" not in board
    assert "over the 0 of" not in board and "4 / 4" in board and "/ 5" not in board
    assert re.search(r"last</a>.*partial, 1 of 2", board, re.S)
    web = json.loads(text(app.test_client(), f"/runs/{partial['run'].rid}.json"))
    assert (web["n"], web["coverage_of"], web["partial_by"]) == (1, 2, ["--limit"])
    assert web["data_coverage"] == {"n": 1, "of": 2, "by": "--limit"}


def test_a_limit_run_is_ranked_apart_on_a_data_file(tmp_path: Path) -> None:
    """Defect 2 on a single data file: the partial run is not a row of the ranking."""
    app = _app([WSC], tmp_path, [("first", WSC, {}), ("random", WSC, {"limit": 1})])
    cat = app.config["CATALOG"]
    (ds,) = cat.datasets.values()
    from refbench.web.views_board import _flat_table

    with app.app_context():
        table = _flat_table(ds, cat.systems(ds))
    assert [r["system"].label for r in table["rows"]] == ["first"]
    assert [(p["system"].label, p["n"], p["total"]) for p in table["partial"]] == \
        [("random", 1, 3)]
    board = text(app.test_client(), "/leaderboard")
    assert "partial, 1 of 3" in board


def test_the_name_given_is_shown_and_found_everywhere(tmp_path: Path) -> None:
    """Defect 6: two configurations recorded as MySys keep the name (told apart by model and
    fingerprint) on the leaderboard, compare, the run page and the home page's filter; every
    run the home page does not show is listed with why."""
    app = _app([WSC], tmp_path, [
        ("first", WSC, {"system": "MySys"}), ("random", WSC, {"system": "MySys"}),
        ("last", WSC, {}), ("last", WSC, {}),  # the older one is not shown
        ("first", WSC, {"system": "MySys", "limit": 1})])  # nor the partial one
    client = app.test_client()
    cat = app.config["CATALOG"]
    (ds,) = cat.datasets.values()
    systems = cat.systems(ds)
    labels = sorted(s.label for s in systems)
    assert labels[0].startswith("MySys [first ") and labels[1].startswith("MySys [random ")
    assert labels[2] == "last"
    board = text(client, "/leaderboard")
    assert board.count("MySys [") >= 2
    named = next(s for s in systems if s.model == "first")
    page = text(client, f"/runs/{named.runs[0].rid}")
    assert re.search(r"<title>[^<]*MySys", page) and "Run s1: MySys" in page
    assert json.loads(text(client, "/runs/s1.json"))["system"] == "MySys"
    compare = text(client, f"/compare?data={ds.key}&sys={systems[0].sid}&sys={systems[1].sid}")
    assert "MySys [first " in compare and "MySys [random " in compare
    home = text(client, "/?runs=MySys")
    assert re.search(r"<strong>2</strong> of 5 runs", home), home
    assert "s5" in home and "a complete run before a partial one" in home
    home = text(client, "/")
    assert re.search(r"<strong>3</strong> of 5 runs", home)
    assert "s3" in home and "the newest one" in home and "s5" in home


def test_a_run_on_another_file_of_a_served_folder_is_attached_to_it(tmp_path: Path) -> None:
    """Defect 7: a run on a file of a served suite folder that the folder's dataset does not
    index (the full-text ``.jsonlines`` view beside the native ``.jsonl``) is that dataset's,
    not "dataset not served"."""
    other = GOLDEN / "background-pretrain" / "subtask_2_ents" / "full-text" / "test.jsonlines"
    app = _app([GOLDEN], tmp_path, [("first", other, {})])
    cat = app.config["CATALOG"]
    (suite,) = [d for d in cat.datasets.values() if d.path == GOLDEN.resolve()]
    (run,) = cat.runs()
    assert cat.dataset_of(run) == suite and [s.label for s in cat.systems(suite)] == ["first"]
    assert "dataset not served" not in text(app.test_client(), "/")


@needs_shared(OFFICIAL)
def test_a_run_on_an_official_kitmus_file_is_attached_to_the_released_folder(
        tmp_path: Path) -> None:
    """Defect 7 as found: ``--data kitmus:released/background-train/subtask_2_ents/full-text/
    test.jsonlines`` while the official ``released`` folder is served."""
    data = OFFICIAL / "background-train" / "subtask_2_ents" / "full-text" / "test.jsonlines.gz"
    app = _app([OFFICIAL], tmp_path, [("first", data, {})])
    cat = app.config["CATALOG"]
    (run,) = cat.runs()
    held = cat.dataset_of(run)
    assert held is not None and held.path == OFFICIAL.resolve()
    assert [s.label for s in cat.systems(held)] == ["first"]


def test_an_older_limit_run_gets_its_n_of_n_from_the_data() -> None:
    """A ``metrics.json`` written before coverage was recorded says only ``limit``: the data
    says how many instances it holds, and a limit at least that size left the run whole."""
    from refbench.web.runs import RunInfo

    def run(n: int, limit: int) -> RunInfo:
        return RunInfo(rid="d1", model="first", fingerprint="f", task="winograd", data=WSC,
                       predictions=Path("p"), created="",
                       metrics={"task": "winograd", "model": "first", "n": n, "limit": limit,
                                "accuracy": 1.0})

    cut = run(1, 1).result.coverage
    assert (cut.n, cut.of, cut.by, cut.is_partial) == (1, 3, ("--limit",), True)
    whole = run(3, 5).result.coverage
    assert (whole.n, whole.of, whole.is_partial) == (3, 3, False)
    assert not run(3, 3).is_partial
