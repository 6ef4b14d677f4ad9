"""Issue 22's study page defects, one browser test each, in Debian's chromium (Playwright):
the ``/study/`` index and the home page's link to it, the AltEntities admin review table, the
message for an AltEntities item sent with fewer than 3 expressions, TNE stage 2 with more
chains than colours, and the progress bar moving as soon as an item is answered.

Screenshots go to $STUDY_SCREENSHOTS when set (to look at them), else to the test's tmp dir.
Skips when /usr/bin/chromium or the playwright package is missing.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from refbench.tasks.altentities.study import create_altentities_study
from refbench.tasks.kitmus.study import create_kitmus_study
from refbench.tasks.tne.annotation.study import create_tne_study
from tests.studies.conftest import ENTITIES, answer_everything, client
from tests.web.study.server_harness import Server, post_answer
from tests.web.study.test_browser import CHROMIUM, answers, page, ready, saved, shots

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is missing "
                                "(apt-get install -y chromium)")
__all__ = ["page", "shots"]  # fixtures shared with test_browser

NAMES = ["Ana", "Ben", "Cal", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon", "Kai", "Lea",
         "Max", "Ned", "Oda", "Pia", "Quin", "Rex", "Sol", "Tia"]


@pytest.fixture
def web_app(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[str, list[Path]]]:
    """``refbench serve --study`` as the CLI builds it, on a free loopback port in a thread."""
    from werkzeug.serving import make_server

    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig
    from refbench.web.serve import study_blueprints

    studies = request.param(tmp_path)
    app = create_app(ServeConfig(data=[], store=tmp_path / "s.sqlite",
                                 index_dir=tmp_path / "index"),
                     extra_blueprints=study_blueprints(studies))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", studies
    finally:
        server.shutdown()
        thread.join()


def two_studies(tmp_path: Path) -> list[Path]:
    ae, tne = tmp_path / "books.sqlite", tmp_path / "tne.sqlite"
    create_altentities_study([ENTITIES], ae, n=4, method="uniform", annotators=["ann1", "ann2"],
                             seed=1)
    create_tne_study(Path(__file__).parents[2] / "fixtures" / "studies" / "tne-tiny.jsonl",
                     tne, n=2, annotators=["ann1"], seed=1)
    answer_everything(ae, client(ae))
    return [ae, tne]


@pytest.mark.parametrize("web_app", [two_studies], indirect=True)
def test_home_links_to_the_study_index_and_admin_opens(web_app: tuple[str, list[Path]],
                                                       page: Any, shots: Any) -> None:
    base, (ae, _) = web_app
    page.goto(base + "/")
    shots(page, "web-home-studies")
    page.click("#studies a")
    page.wait_for_url("**/study/")
    assert page.locator("table.studies tbody tr").count() == 2
    row = page.locator("#study-books")
    assert "altentities-collection" in row.inner_text() and "8 / 8 items done" in row.inner_text()
    # A wrong token: 403 and the page again with the reason (in a tab of its own, whose
    # console may log the 403 without failing the shared page's no-error check).
    other = page.context.new_page()
    other.goto(page.url)
    other.locator("#study-books input[name=token]").fill("not-the-right-token")
    other.locator("#study-books button").click()
    other.wait_for_selector("#index-error", state="visible")
    assert "not the admin token of books" in other.locator("#index-error").inner_text()
    assert other.url == page.url  # the script said why in place; nothing was reloaded
    shots(other, "study-index-wrong-token")
    other.close()
    from tests.studies.conftest import tokens

    admin = tokens(ae)["admin"]
    page.locator("#study-books input[name=token]").fill(f"{base}/study/books/admin/{admin}/")
    page.locator("#study-books button").click()
    page.wait_for_url(f"**/study/books/admin/{admin}/")
    assert "Study admin" in page.content()
    page.goto(base + "/study/")
    shots(page, "study-index")


def test_altentities_admin_review_table(tmp_path: Path, page: Any, shots: Any) -> None:
    study = tmp_path / "ae.sqlite"
    create_altentities_study([ENTITIES], study, n=4, method="uniform",
                             annotators=["ann1", "ann2"], seed=1)
    server = Server(study)
    try:
        for name in ("ann1", "ann2"):
            for pos in range(1, 5):
                words = ["the one about the sea", "not the funny one", "the newer one"]
                status, _ = post_answer(server.links[name], pos,
                                        {f"e{i + 1}": w for i, w in enumerate(words)})
                assert status == 200
        page.goto(server.links["admin"])
        text = page.locator("main").inner_text()
        assert "built-in method" not in text and "24 expressions for 4 of 4 items" in text
        assert page.locator("table.review tbody tr").count() == 24
        shots(page, "altentities-admin-review")
        page.select_option("select[name=annotator]", "ann2")
        page.fill("input[name=q]", "sea")
        page.click(".review-filters button[type=submit]")
        page.wait_for_selector("text=(filtered)")
        assert page.locator("table.review tbody tr").count() == 4  # one per item
        assert "annotator=ann2" in page.url and "q=sea" in page.url
        href = page.get_attribute("#review-csv", "href")
        assert href is not None and "annotator=ann2" in href and "q=sea" in href
        shots(page, "altentities-admin-review-filtered")
        with page.expect_download() as dl:
            page.click("#review-csv")
        lines = Path(dl.value.path()).read_text().splitlines()
        assert lines[0].startswith("item,annotator,label") and len(lines) == 5
    finally:
        server.stop()


def test_altentities_too_few_expressions_says_what_is_missing(tmp_path: Path, page: Any,
                                                              shots: Any) -> None:
    study = tmp_path / "ae.sqlite"
    create_altentities_study([ENTITIES], study, n=2, method="uniform", annotators=["ann1"],
                             seed=5)
    server = Server(study)
    try:
        page.goto(server.links["ann1"] + "1?step=write")
        ready(page)
        page.fill("input[name=e1]", "the one I read on the train")
        page.fill("input[name=e2]", "not the sad one")
        page.click("button[type=submit]")
        page.wait_for_selector("#missing")
        assert "you have written 2, so 1 more is needed" in page.locator("#missing").inner_text()
        assert page.url.endswith("/1?step=write&missing=1")  # still on the same item
        assert page.input_value("input[name=e1]") == "the one I read on the train"
        assert page.input_value("input[name=e2]") == "not the sad one"
        assert page.evaluate("document.activeElement.name") == "e3"  # the field to fill
        shots(page, "altentities-missing")
        page.fill("input[name=e3]", "I was thinking of the older story")
        page.click("button[type=submit]")
        page.wait_for_url("**/a/*/2")
        assert page.locator("#missing").count() == 0
    finally:
        server.stop()


def many_chains(path: Path) -> Path:
    """One TNE document of 20 one-word NPs, each a chain of its own (more than 15 colours)."""
    text = " . ".join(f"{a} met {b}" for a, b in zip(NAMES[::2], NAMES[1::2], strict=True))
    nps, at = [], 0
    for k, name in enumerate(NAMES):
        at = text.index(name, at)
        nps.append({"id": f"np{k}", "text": name, "first_char": at, "last_char": at + len(name),
                    "first_token": 0, "last_token": 0})
        at += len(name)
    doc = {"id": "d1", "text": text, "tokens": text.split(), "nps": nps, "np_relations": [],
           "coref": [{"id": f"cc{k}", "members": [f"np{k}"], "np_type": "standard"}
                     for k in range(len(NAMES))]}
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    return path


def test_tne_stage2_chains_look_distinct(tmp_path: Path, page: Any, shots: Any) -> None:
    study = tmp_path / "tne.sqlite"
    create_tne_study(many_chains(tmp_path / "many.jsonl"), study, n=1, annotators=["ann1"],
                     seed=0)
    server = Server(study)
    try:
        link = server.links["ann1"]
        for k in range(len(NAMES)):
            status, _ = post_answer(link, 1, {"stage": "1", "np": f"np{k}", "type": "new"})
            assert status == 200
        page.goto(link + "1")
        page.wait_for_selector("text=Stage 2 · NP 1 of 20")
        looks = page.evaluate("""() => [...document.querySelectorAll('#doc .np')].map(el => {
            const s = getComputedStyle(el);
            return s.borderBottomColor + ' ' + s.borderBottomStyle; })""")
        assert len(looks) == 20 and len(set(looks)) == 20  # no two chains look alike
        swatches = page.evaluate("""() => [...document.querySelectorAll('table.links .swatch')]
            .map(el => { const s = getComputedStyle(el);
                         return s.backgroundColor + ' ' + s.backgroundImage; })""")
        assert len(swatches) == 19 and len(set(swatches)) == 19
        shots(page, "tne-stage2-many-chains")
    finally:
        server.stop()


def test_progress_bar_moves_when_an_item_is_answered(tmp_path: Path, suite: Path, page: Any,
                                                     shots: Any) -> None:
    study = tmp_path / "k.sqlite"
    create_kitmus_study(suite, study, n=4, conditions=["with-knowledge"], gold_checks=0,
                        annotators=["ann1"], seed=3, progress=False)
    server = Server(study)
    try:
        page.goto(server.links["ann1"] + "1")
        ready(page)
        assert page.get_attribute("#study-progress", "value") == "0"
        page.keyboard.press("1")
        saved(page)
        page.wait_for_function("document.getElementById('study-progress').value === 1")
        assert page.locator("#study-count").inner_text() == "1 / 4 done"
        assert page.locator(".item-head .ok").inner_text() == "answered"
        assert page.url.endswith("/1")  # still on the item: no page load needed
        shots(page, "kitmus-progress")
        assert len(answers(study, "ann1")) == 1
    finally:
        server.stop()
