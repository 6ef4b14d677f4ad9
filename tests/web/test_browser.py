"""End-to-end: the real server on 127.0.0.1 driven by Playwright in Debian's chromium.

Skips (with the reason) when the ``playwright`` package or a chromium binary is missing;
``make setup`` installs both. Set ``REFBENCH_SCREENSHOTS=DIR`` to keep a screenshot of every
page type. Any JavaScript dialog (an executed ``alert`` from dataset text), console error or
Content-Security-Policy violation fails the test.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("REFBENCH_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update"]


def _skip_reason() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (make setup installs it)"
    if not Path(CHROMIUM).is_file():
        return f"no chromium at {CHROMIUM} (make setup installs Debian's chromium)"
    return None


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")


@pytest.fixture(scope="module")
def base_url(app: Any) -> Iterator[str]:
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()


@pytest.fixture(scope="module")
def browser_context() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="refbench-chromium-")
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=FLAGS,
            viewport={"width": 1300, "height": 900})
        try:
            yield ctx
        finally:
            ctx.close()
            shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture()
def page(browser_context: Any) -> Iterator[Any]:
    pg = browser_context.new_page()
    problems: list[str] = []
    pg.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    pg.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    pg.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
          if m.type == "error" else None)
    pg.set_default_timeout(20000)
    pg.problems = problems
    yield pg
    pg.close()
    assert not problems, problems


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def shot(page: Any, name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    keep = os.environ.get("REFBENCH_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)


def key(app: Any, task: str, *, suite: bool = False) -> str:
    from tests.web.test_routes import key as find

    return find(app, task, suite=suite)


def test_open_a_dataset_search_and_open_an_instance(page: Any, base_url: str, app: Any,
                                                    tmp_path: Path) -> None:
    page.goto(base_url + "/")
    shot(page, "home", tmp_path)
    page.click("text=suite")
    page.wait_for_selector("#matching")
    assert "f.split=test" in page.url  # opens on the split its runs are on
    assert page.inner_text("#matching") == "8"
    page.click("a.clear")  # every split: the page stays open on all of them
    expect(page.locator("#matching")).to_have_text("20")
    shot(page, "dataset", tmp_path)
    page.fill("#q", "Loughman")  # htmx searches as one types and pushes the URL
    expect(page.locator("#matching")).to_have_text("2")  # (no eval: the page's CSP forbids it)
    assert "q=Loughman" in page.url
    page.click("a:has-text('background-pretrain/subtask_2_ents/test:0')")
    page.wait_for_selector("text=Knowledge text")
    assert page.locator(".pron").first.inner_text() in ("He", "he", "She", "she")
    shot(page, "instance-kitmus", tmp_path)
    page.click("#prev")
    page.wait_for_selector("text=Task text")
    assert "q=Loughman" in page.url


def test_every_instance_view_renders_markup_as_text(page: Any, base_url: str, app: Any,
                                                    tmp_path: Path) -> None:
    for task, n in (("knowref", 0), ("gap", 0), ("winograd", 0), ("altentities", 0),
                    ("kitmus", 1)):
        page.goto(f"{base_url}/data/{key(app, task)}/{n}")
        body = page.inner_text("main")
        assert "<script>alert(" in body or "<img src=x onerror=" in body  # shown, as text
        assert page.locator("main script, main img").count() == 0
        shot(page, f"instance-{task}", tmp_path)


def test_click_a_tne_np_and_hover_its_chain(page: Any, base_url: str, app: Any,
                                            tmp_path: Path) -> None:
    page.goto(f"{base_url}/data/{key(app, 'tne')}/0")
    page.click(".tnedoc [data-np='np4']")  # "the roof"
    page.wait_for_selector(".nplinks")
    links = page.inner_text("#links")
    assert "the old market" in links and "of / on" in links and "explicit" in links
    assert "np=np4" in page.url
    assert "selected" in (page.get_attribute(".tnedoc [data-np='np4']", "class") or "")
    assert "complement" in (page.get_attribute(".tnedoc [data-np='np5']", "class") or "")
    page.hover(".tnedoc [data-np='np0']")  # "Storm", same chain as "The storm"
    assert "hl" in (page.get_attribute(".tnedoc [data-np='np3']", "class") or "")
    shot(page, "instance-tne", tmp_path)
    page.click(".chips [data-np='np3']")
    expect(page.locator(".nplinks")).to_have_attribute("data-anchor", "np3")
    assert "implicit" in page.inner_text("#links")


def test_compare_two_runs_and_filter_to_disagreements(page: Any, base_url: str, app: Any,
                                                      tmp_path: Path) -> None:
    page.goto(f"{base_url}/data/{key(app, 'kitmus')}")
    page.click("text=Compare systems")
    page.wait_for_selector("text=Accuracy by slice")
    for label in ("first", "random"):
        page.check(f"form.picker label:has-text('{label}') input")
    page.uncheck("form.picker label:has-text('knowledge-match') input")
    page.click("form.picker button")
    page.wait_for_selector(".significance")  # loaded by htmx after the page
    assert "McNemar p" in page.inner_text(".significance")
    total = int(page.inner_text("#matching"))
    scores = [int(t) for t in page.locator("tr.inst-row td:last-child").all_inner_texts()]
    page.check("#disagree")
    page.click("#apply")
    page.wait_for_selector(".significance")
    assert "disagree=1" in page.url
    assert int(page.inner_text("#matching")) == sum(1 for s in scores if s > 0) <= total
    shot(page, "compare", tmp_path)
    page.check("form.picker label:has-text('knowledge-match') input")  # a third system
    page.click("form.picker button")
    page.wait_for_selector(".significance .per-pair")
    assert page.locator(".significance td.holm-mcnemar").count() >= 2
    shot(page, "compare-three", tmp_path)


def test_leaderboard_run_and_demo_pages(page: Any, base_url: str, tmp_path: Path) -> None:
    page.goto(base_url + "/leaderboard")
    shot(page, "leaderboard", tmp_path)
    page.click("section.board a[href^='/runs/'] >> nth=0")
    page.wait_for_selector("text=Provenance")
    shot(page, "run", tmp_path)
    page.goto(base_url + "/tne-demo")
    page.fill("#demo-text", "The Roof of the House in Town fell.")
    page.click("#enrich")
    page.click(".tnedoc [data-np='np1']")
    page.wait_for_selector(".nplinks")
    assert "House" in page.inner_text("#links")  # the stand-in links each NP to the next
    shot(page, "tne-demo", tmp_path)
    page.goto(base_url + "/data/nowhere")
    assert "404" in page.inner_text("h1")
    shot(page, "error", tmp_path)
    assert [p for p in page.problems if "404" not in p] == []
    page.problems.clear()  # the browser logs the page's own 404 status as a console error


def test_failed_advanced_search_keeps_the_filters(page: Any, base_url: str, app: Any,
                                                  tmp_path: Path) -> None:
    """A search SQLite rejects (advanced mode) shows its message where the results were; the
    filters, the chosen slice and the search form stay on screen, and a good search after it
    lists results again. Plain mode finds what people type (an apostrophe, a hyphen)."""
    k = key(app, "kitmus", suite=True)
    page.goto(f"{base_url}/data/{k}?f.variant=background-pretrain")
    expect(page.locator("#matching")).to_have_text("10")
    assert page.locator("#field option").count() == 3  # all / task text / knowledge text
    page.select_option("#field", "task")
    page.fill("#q", "O'Brien's e-mail")  # plain text: no FTS5 syntax error on what people type
    expect(page.locator("#results")).to_contain_text("match")
    expect(page.locator("#error")).to_have_count(0)
    page.select_option("#field", "")
    page.fill("#q", "Loughman")
    expect(page.locator("#matching")).to_have_text("1")
    shot(page, "search-plain", tmp_path)
    page.select_option("#mode", "advanced")
    page.fill("#q", '"unbalanced')
    expect(page.locator("#error")).to_contain_text("search syntax")
    expect(page.locator(".facets")).to_be_visible()
    expect(page.locator(".facets strong", has_text="background-pretrain")).to_be_visible()
    expect(page.locator("#q")).to_have_value('"unbalanced')
    shot(page, "search-error-keeps-filters", tmp_path)
    page.fill("#q", "harbour OR marina")
    expect(page.locator("#matching")).to_be_visible()
    expect(page.locator("#error")).to_have_count(0)
    # The failed search's 400 (logged by chromium and htmx) is expected here.
    page.problems[:] = [p for p in page.problems
                        if "status of 400" not in p and "Error Code 400" not in p]


def test_compare_significance_on_the_suite(page: Any, base_url: str, app: Any,
                                           tmp_path: Path) -> None:
    """Two systems on the KITMUS suite: the page shows the significance the server computes
    (the bootstrap p as its fragment renders it) and the accuracy matrix; first and last split
    the balanced subtask's answers between them."""
    import re

    from tests.web.test_routes import system_ids

    k = key(app, "kitmus", suite=True)
    ids = system_ids(app, k)
    query = f"data={k}&sys={ids['first']}&sys={ids['last']}"
    fragment = app.test_client().get(f"/compare/significance?{query}").get_data(as_text=True)
    boot = re.search(r'class="num boot-p">([^<]*)<', fragment)
    assert boot is not None
    page.goto(f"{base_url}/compare?{query}")
    page.wait_for_selector(".significance")
    shown = page.inner_text(".significance td.boot-p").strip()
    assert shown == boot.group(1).replace("&lt;", "<")
    assert "0.500 / 0.500" in page.inner_text("#matrix")
    shot(page, "compare-suite", tmp_path)
    page.click("#matrix td.mcell a >> nth=0")  # the cell's disagreements
    page.wait_for_selector("#matching")
    assert "disagree=1" in page.url and "f.entities=2" in page.url
    assert int(page.inner_text("#matching")) == 2


def test_gap_neither_gold(page: Any, tmp_path: Path) -> None:
    """A GAP "neither" instance shows "neither" as its gold."""
    from werkzeug.serving import make_server

    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig
    from tests.web.test_analysis import GAP_HEADER

    gap = tmp_path / "gap-neither.tsv"
    gap.write_text(GAP_HEADER + "n-1\tMira Holt phoned Dana Reyes because she needed the keys."
                   "\tshe\t36\tMira Holt\t0\tFALSE\tDana Reyes\t17\tFALSE\thttp://example.org/n-1\n",
                   encoding="utf-8")
    app = create_app(ServeConfig(data=[gap], store=tmp_path / "r.sqlite",
                                 index_dir=tmp_path / "index"))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page.goto(f"http://127.0.0.1:{server.server_port}/data/{key(app, 'gap')}/0")
        assert page.inner_text(".gold-none .goldmark") == "neither"
        shot(page, "gap-neither", tmp_path)
    finally:
        server.shutdown()


def test_run_page_opens_its_subtask_and_counts_within_it(page: Any, base_url: str, app: Any,
                                                         tmp_path: Path) -> None:
    cat = app.config["CATALOG"]
    ds = cat.datasets[key(app, "kitmus", suite=True)]
    run = next(r for s in cat.systems(ds) for r in s.runs if s.label == "first")
    page.goto(f"{base_url}/runs/{run.rid}")
    page.click("#browse-run")
    page.wait_for_selector("#matching")
    assert "f.variant=background-pretrain" in page.url
    shot(page, "run-subtask-list", tmp_path)
    page.click("#results td.num a >> nth=0")
    page.wait_for_selector(".instnav .place")
    assert page.inner_text(".instnav .place").startswith("1 of 2 selected")
    shot(page, "run-subtask-instance", tmp_path)


KITMUS_VARIANTS = ("background-both", "background-inference-charfict-charfict",
                   "background-inference-charfict-real", "background-inference-charfict-wordfict",
                   "background-inference-real-charfict", "background-inference-real-wordfict",
                   "background-train", "background-train-no-noise")


def suite_table() -> dict[str, Any]:
    """A leaderboard table as wide as the released KITMUS suite's: its 8 variants x 2, 3 and 4
    entities, four systems, every cell with its interval."""
    from types import SimpleNamespace

    cols = [(v, n) for v in KITMUS_VARIANTS for n in (2, 3, 4)]
    rows = [{"system": SimpleNamespace(sid=f"s{k}", label=name), "mean": 0.6,
             "common_mean": 0.6, "coverage": len(cols),
             "cells": [{"value": 0.5 + 0.01 * j, "ci": (0.412, 0.689), "method": "bootstrap",
                        "rid": f"r{k}-{j}"} for j in range(len(cols))]}
            for k, name in enumerate(("knowledge-match-minilm", "bert4coref", "first", "random"))]
    from refbench.web.views_board import column_blocks

    spans = [(v, 3) for v in KITMUS_VARIANTS]
    return {"columns": [{"group": v, "column": n, "label": str(n)} for v, n in cols],
            "rows": rows, "suite": True, "variants": spans, "blocks": column_blocks(spans),
            "metric": "pronoun accuracy per subtask", "n_columns": len(cols),
            "n_common": len(cols)}


def test_kitmus_leaderboard_fits_a_1366_screen(page: Any, base_url: str, app: Any,
                                               tmp_path: Path) -> None:
    """The suite's 24 subtask columns: the page stays within a 1,366 px screen (no page-wide
    horizontal scroll); the table itself wraps its column groups."""
    from types import SimpleNamespace

    from flask import render_template

    ds = SimpleNamespace(key=key(app, "kitmus", suite=True), label="kitmus-official/released",
                         path="/data/kitmus-official/released")
    with app.test_request_context("/leaderboard"):
        html = render_template("leaderboard.html",
                               by_task={"kitmus": [{"ds": ds, "table": suite_table()}]})
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(base_url + "/leaderboard")
    page.set_content(html)
    page.wait_for_selector("section.board table")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    # and no table hides columns behind its own scroll bar: every block fits as drawn
    widths = page.evaluate("[...document.querySelectorAll('.suite-block')]"
                           ".map(d => [d.scrollWidth, d.clientWidth])")
    assert len(widths) == 3 and all(sw <= cw for sw, cw in widths), widths
    assert page.locator("table.suite td.num a").count() == 4 * 24
    shot(page, "leaderboard-kitmus-1366", tmp_path)


def test_home_runs_grouped_and_filtered(page: Any, base_url: str, tmp_path: Path) -> None:
    page.goto(base_url + "/")
    assert page.locator(".run-group").count() >= 6
    shot(page, "home-runs", tmp_path)
    page.fill("#run-filter", "kitmus first")
    page.click("form.run-filter button")
    page.wait_for_selector("#run-counts")
    assert "runs=kitmus+first" in page.url
    assert page.locator(".run-group").count() == 2
    shot(page, "home-runs-filtered", tmp_path)


def test_tne_compare_documents(page: Any, base_url: str, app: Any, tmp_path: Path) -> None:
    from tests.web.test_routes import system_ids

    k = key(app, "tne")
    ids = system_ids(app, k)
    page.goto(f"{base_url}/compare?data={k}&sys={ids['adj-backward']}&sys={ids['surface']}")
    page.wait_for_selector("#doc-significance")
    assert "permutation p" in page.inner_text("#doc-significance")
    assert page.locator("tr.doc-row").count() >= 1
    shot(page, "compare-tne", tmp_path)
    page.click("tr.doc-row td.iid a >> nth=0")
    page.wait_for_selector(".tnedoc")


def test_tne_demo_without_a_model(page: Any, tmp_path: Path) -> None:
    """No --tne-model: the chunker and the surface baseline, and the page says so."""
    pytest.importorskip("spacy")
    from werkzeug.serving import make_server

    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    app = create_app(ServeConfig(data=[], store=tmp_path / "r.sqlite",
                                 index_dir=tmp_path / "index"))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        page.goto(f"http://127.0.0.1:{server.server_port}/tne-demo")
        assert "No TNE model" in page.inner_text("#no-model")
        page.fill("#demo-text", "The roof of the old house in the village collapsed after "
                                "the storm.")
        page.click("#enrich")
        page.click(".tnedoc [data-np='np0']")
        page.wait_for_selector(".nplinks")
        assert "the old house" in page.inner_text("#links")
        shot(page, "tne-demo-baseline", tmp_path)
    finally:
        server.shutdown()


def test_the_model_card_from_home_to_a_run_and_to_compare(page: Any, base_url: str, app: Any,
                                                          tmp_path: Path) -> None:
    page.goto(base_url + "/")
    page.click("main a:has-text('model card')")
    page.wait_for_selector("table.model-card")
    assert page.url.endswith("/card")
    rows = page.locator("table.model-card tbody tr")
    assert rows.count() >= 2  # every recorded system, one row each
    heads = page.inner_text("table.model-card thead")
    assert "kitmus" in heads and "winograd" in heads  # a column group per benchmark
    shot(page, "model-card", tmp_path)
    cell = page.locator("table.model-card tbody td a").first
    assert "(" in cell.inner_text() and " of " in cell.inner_text()  # n of N in every cell
    cell.click()
    page.wait_for_url("**/runs/*")
    page.go_back()
    page.click("table.model-card thead a:has-text('compare')")
    page.wait_for_url("**/compare?data=*")
    page.goto(base_url + "/leaderboard")
    page.click("main a:has-text('model card')")
    page.wait_for_selector("table.model-card")
