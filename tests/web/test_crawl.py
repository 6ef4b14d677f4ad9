"""No page fails: a crawl from the home page follows every link the app shows and expects 200
(or a redirect to a page that answers 200). On the fixture world always; on ``../shared/data``
served whole, with runs of cheap baselines of every task, where ``../shared`` is present.

Pages of one kind on one dataset (its instances, its later pages, its filters, compare under
each filter) are many thousands on the real releases; the crawl opens a few of each and every
other page."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urljoin, urlparse

import pytest
from werkzeug.exceptions import HTTPException

from tests.conftest import SHARED, cli_ok, needs_shared

REAL = SHARED / "data"
# Pages that exist once per instance, page of a listing or filter of a dataset: a few of each.
PER_DATASET = {"browse.instance", "browse.by_id", "browse.np_fragment", "browse.evidence",
               "browse.jump", "demo.page"}
# Query parameters that narrow a page to part of a dataset (a filter, a search, a later page).
NARROWING = {"q", "after", "before", "mode", "slice", "value"}
FEW = 3
# A missing value printed as Python's None (a phantom "None / 0" column, a "None" cell).
NONE = re.compile(r">\s*None\s*<|\bNone / |\(None\)|: None\b|>None\b")
# A chart the page lists as optional (drawn on its own request; the page drops it when the
# drawing shows it has nothing to show: 204 No Content).
OPTIONAL = re.compile(r'<figure[^>]*data-optional[^>]*><a href="([^"]*)"')


def crawl(app: Any) -> tuple[list[tuple[str, Any]], Counter[str]]:
    """(failures, pages opened per endpoint) of a breadth-first walk from ``/``."""
    client = app.test_client()
    adapter = app.url_map.bind("localhost")
    opened: Counter[str] = Counter()
    quota: Counter[tuple[str, str]] = Counter()
    seen: set[str] = set()
    optional: set[str] = set()
    queue, failures = ["/"], []

    def wanted(url: str) -> bool:
        parsed = urlparse(url)
        if parsed.scheme or parsed.netloc or url in seen:
            return False
        try:
            endpoint, args = adapter.match(parsed.path)
        except HTTPException:  # a link to no route is itself a failure
            failures.append((url, "no route"))
            return False
        query = parse_qs(parsed.query)
        narrowed = any(k.startswith("f.") or k in NARROWING for k in query)
        if endpoint in PER_DATASET or narrowed:
            slot = (endpoint, str(args.get("key") or query.get("data", [""])[0]))
            if quota[slot] >= FEW:
                return False
            quota[slot] += 1
        return True

    while queue:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        endpoint = adapter.match(urlparse(url).path)[0]
        opened[endpoint] += 1
        if response.status_code in (301, 302, 303, 307, 308):
            target = urljoin(url, response.headers["Location"])
            if wanted(target):
                queue.append(target)
            continue
        if response.status_code == 204 and url in optional:
            continue  # an optional chart with nothing to show, which the page then drops
        if response.status_code != 200:
            failures.append((url, response.status_code,
                             response.get_data(as_text=True)[:300]))
            continue
        if "text/html" not in response.content_type:
            continue
        body = response.get_data(as_text=True)
        shown = NONE.search(body)
        if shown:
            failures.append((url, "shows None", body[max(0, shown.start() - 120):
                                                     shown.end() + 120]))
        optional.update(urljoin(url, h.replace("&amp;", "&")) for h in OPTIONAL.findall(body))
        for href in re.findall(r'(?:href|src)="([^"#]*)', body):
            target = urljoin(url, href.replace("&amp;", "&"))
            if href and wanted(target):
                queue.append(target)
    return failures, opened


def test_every_page_of_the_fixture_world_answers(world: dict[str, Any]) -> None:
    from refbench.web.app import create_app

    failures, opened = crawl(create_app(world["config"]))
    assert failures == []
    for endpoint in ("browse.home", "browse.dataset", "browse.instance", "board.leaderboard",
                     "board.run_page", "compare.compare"):
        assert opened[endpoint] > 0, (endpoint, opened)


@needs_shared(REAL)
def test_every_page_of_the_real_releases_answers(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 5: ``serve ../shared/data --runs <baselines>``: every linked page is a 200,
    every run sits on the data it read (TNE baseline runs, ordinary run folders, too), and
    the home page's count of runs is the number of runs. Issue 38: with a ``--limit`` run and
    two systems sharing a name too, and no page shows "None"."""
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    store = tmp_path / "store.sqlite"
    files = {
        "kitmus": REAL / "kitmus-official" / "released" / "background-train"
        / "subtask_4_ents" / "full-text" / "test.v4_gold_conll.gz",
        "gap": REAL / "gap" / "gap-test.tsv", "knowref": REAL / "knowref" / "knowref_test.json",
        "winograd": REAL / "winograd" / "wsc273.jsonl",
        "altentities": REAL / "altentities" / "recipes" / "test.json.gz",
        "winogender": REAL / "winogender", "winobias": REAL / "winobias",
    }
    for task, data in files.items():
        for model in ("random", "first"):
            cli_ok(capsys, "run", "--model", model, "--data", str(data), "--store", str(store),
                 "--out", str(tmp_path / "runs" / f"{task}-{model}"), "--quiet")
    cli_ok(capsys, "run", "--model", "last", "--data", str(files["knowref"]), "--limit", "200",
         "--store", str(store), "--out", str(tmp_path / "runs" / "knowref-limit"), "--quiet")
    for model in ("first", "random"):  # two systems under one name
        cli_ok(capsys, "run", "--model", model, "--system", "Shared", "--data",
             str(files["winograd"]), "--store", str(store), "--out",
             str(tmp_path / "runs" / f"shared-{model}"), "--quiet")
    cli_ok(capsys, "tne", "baseline", "all", "--data", str(REAL / "tne" / "test.jsonl.gz"),
         "--out", str(tmp_path / "tne"), "--store", str(store))
    app = create_app(ServeConfig(data=[REAL], run_dirs=[], store=store,
                                 index_dir=tmp_path / "index"))
    cat = app.config["CATALOG"]
    runs = cat.runs()
    tne_runs = sorted((tmp_path / "tne").glob("*/metrics.json"))
    assert len(tne_runs) == 9
    assert len(runs) == 2 * (1 + 1 + 1 + 1 + 1 + 1 + 4) + 3 + len(tne_runs)
    for run in runs:  # one kind of run: every one on the dataset holding what it read
        held = cat.dataset_of(run)
        assert held is not None and held.task.name == run.task, run.rid
    attached: Counter[str] = Counter()
    for ds in cat.datasets.values():
        for system in cat.systems(ds):
            attached.update(r.rid for r in system.runs)
            if ds.task.documents is not None:
                assert ds.path.name == "test.jsonl.gz", ds.label  # the labelled file they predict

    failures, opened = crawl(app)
    assert failures == []
    assert opened["board.run_page"] >= len(runs)
    board = app.test_client().get("/leaderboard").get_data(as_text=True)
    assert "partial, 200 of 1,269" in board  # the --limit run, listed apart
    assert board.count("Shared [") >= 2  # two systems under one name, told apart
    home = app.test_client().get("/").get_data(as_text=True)
    counts = re.search(r"<strong>([\d,]+)</strong> of ([\d,]+) runs", home)
    # the Shared runs of first and random are those configurations' newest runs on WSC: the
    # two older unnamed ones are not shown, and the home page lists them with why
    assert counts is not None and (counts[1], counts[2]) == (str(len(runs) - 2),
                                                            str(len(runs))), counts
    assert "2 runs not shown" in home and home.count("the newest one") == 2
    assert set(attached) <= {r.rid for r in runs}


@pytest.mark.parametrize("path", ["/data/nope", "/runs/nope", "/data/nope/3"])
def test_a_missing_page_is_a_404_not_a_500(world: dict[str, Any], path: str) -> None:
    from refbench.web.app import create_app

    assert create_app(world["config"]).test_client().get(path).status_code == 404


def test_every_page_answers_with_partial_runs_and_shared_names(tmp_path: Path) -> None:
    """Issue 38 on the fixtures: a ``--limit`` run beside complete suite runs, two systems
    recorded under one name and a partial run of one of them: every page is a 200 and none
    shows "None"."""
    from scripts.regen_golden import GOLDEN

    from tests.web.test_partial_and_names import SUBTASK, WSC, _app

    app = _app([GOLDEN, WSC], tmp_path, [
        ("first", GOLDEN, {}), ("random", GOLDEN, {}), ("last", SUBTASK, {"limit": 1}),
        ("first", WSC, {"system": "Shared"}), ("random", WSC, {"system": "Shared"}),
        ("first", WSC, {"system": "Shared", "limit": 1})])
    failures, opened = crawl(app)
    assert failures == []
    assert opened["board.run_page"] >= 6 and opened["board.run_json"] >= 6
