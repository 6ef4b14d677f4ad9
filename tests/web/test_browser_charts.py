"""The charts in a real browser (Playwright driving Debian's chromium, as
``test_browser.py``): every chart of the run and compare pages loads as an image under the
page's Content-Security-Policy (a violation or a failed image fails the test), and a
screenshot of each page is kept with ``REFBENCH_SCREENSHOTS=DIR``, search results included."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, release_app
from tests.web.test_browser import base_url, browser_context, key, page, pytestmark, shot
from tests.web.test_routes import system_ids

__all__ = ["base_url", "browser_context", "page", "pytestmark"]  # fixtures used here


def charts_loaded(page: Any, least: int) -> int:
    """Wait for every chart image to load (a broken one has no natural width); returns how
    many there are."""
    from tests.web.test_browser import expect

    page.wait_for_selector("#charts img")
    # lazy images load when near the view; an optional chart (the task's figure, drawn on its
    # own request) that turns out not to exist is taken off the page by its script
    page.evaluate("document.querySelectorAll('#charts img').forEach(i => i.scrollIntoView())")
    settled = ("[...document.querySelectorAll('#charts img')].every(i => i.complete"
               " && (i.naturalWidth > 0 || !i.closest('figure[data-optional]')))")
    for _ in range(600):  # polled from here: wait_for_function's eval is against the CSP
        if page.evaluate(settled):
            break
        page.wait_for_timeout(100)
    images = page.locator("#charts img")
    n = int(images.count())
    assert n >= least
    for k in range(n):
        expect(images.nth(k)).to_have_js_property("complete", True)
    widths = page.evaluate("[...document.querySelectorAll('#charts img')]"
                           ".map(i => i.naturalWidth)")
    assert all(w > 0 for w in widths), widths
    return n


def test_run_and_compare_charts(page: Any, base_url: str, app: Any, tmp_path: Path) -> None:
    cat = app.config["CATALOG"]
    run = next(r for r in cat.runs() if r.model == "random" and r.task == "kitmus"
               and "suite" not in str(r.data))
    page.goto(f"{base_url}/runs/{run.rid}")
    assert charts_loaded(page, 2) >= 2
    shot(page, "charts-run-kitmus", tmp_path)
    k = key(app, "kitmus", suite=True)
    ids = system_ids(app, k)
    page.goto(f"{base_url}/compare?data={k}&sys={ids['first']}&sys={ids['last']}")
    charts_loaded(page, 2)  # slices and the task's figure
    shot(page, "charts-compare-suite", tmp_path)


def test_tne_charts(page: Any, base_url: str, app: Any, tmp_path: Path) -> None:
    k = key(app, "tne")
    ids = system_ids(app, k)
    page.goto(f"{base_url}/compare?data={k}&sys={ids['adj-backward']}&sys={ids['surface']}")
    charts_loaded(page, 1)
    shot(page, "charts-compare-tne", tmp_path)
    run = next(r for r in app.config["CATALOG"].runs() if r.task == "tne")
    page.goto(f"{base_url}/runs/{run.rid}")
    charts_loaded(page, 1)
    shot(page, "charts-run-tne", tmp_path)


def test_search_snippets(page: Any, base_url: str, app: Any, tmp_path: Path) -> None:
    page.goto(f"{base_url}/data/{key(app, 'tne')}?q=crowds")
    page.wait_for_selector("#results mark")
    assert page.inner_text("#results mark") == "crowd"
    shot(page, "search-snippet-tne", tmp_path)


@pytest.fixture(scope="module")
def bias_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    from werkzeug.serving import make_server

    root = tmp_path_factory.mktemp("bias-charts")
    for name in ("winobias", "winogender"):
        shutil.copytree(ROOT / "tests" / "fixtures" / name, root / name)
    app = release_app(root / "wb", root / "winobias", models=("first", "random", "last"))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", app
    finally:
        server.shutdown()


def test_winobias_pro_anti_charts(page: Any, bias_server: tuple[str, Any],
                                  tmp_path: Path) -> None:
    url, app = bias_server
    cat = app.config["CATALOG"]
    run = next(r for r in cat.runs() if r.model == "random"
               and str(r.data).endswith("anti_stereotyped_type2.txt.test"))
    page.goto(f"{url}/runs/{run.rid}")
    charts_loaded(page, 3)
    assert page.locator("#charts img.chart-figure, #charts .chart-figure img").count() == 1
    shot(page, "charts-run-winobias", tmp_path)
    ds = next(iter(cat.datasets))
    ids = {s.label: s.sid for s in cat.systems(cat.datasets[ds])}
    page.goto(f"{url}/compare?data={ds}&sys={ids['first']}&sys={ids['random']}"
              f"&sys={ids['last']}")
    charts_loaded(page, 2)
    shot(page, "charts-compare-winobias", tmp_path)
