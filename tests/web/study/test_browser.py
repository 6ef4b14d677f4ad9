"""One annotator through each study type in Debian's chromium (Playwright), against a real
server: keyboard shortcuts, answers saved as given (a reload loses nothing), the finish page.

Screenshots go to $STUDY_SCREENSHOTS when set (to look at them), else to the test's tmp dir.
Skips when /usr/bin/chromium or the playwright package is missing.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from refbench.studyfile.db import StudyStore
from refbench.tasks.altentities.study import create_altentities_study
from refbench.tasks.kitmus.study import create_kitmus_study
from refbench.tasks.tne.annotation.study import create_tne_study
from tests.studies.conftest import ENTITIES, TNE_TINY
from tests.web.study.server_harness import Server

CHROMIUM = Path("/usr/bin/chromium")
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is missing "
                                "(apt-get install -y chromium)")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update"]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=str(CHROMIUM),
            headless=True, args=ARGS, viewport={"width": 1280, "height": 900})
        pg = ctx.new_page()
        pg.set_default_timeout(60_000)  # two shared cores can be slow; nothing here should be
        errors: list[str] = []
        pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: errors.append(str(e)))
        yield pg
        ctx.close()
        assert not errors, errors  # no CSP violation, no script error


@pytest.fixture
def shots(tmp_path: Path) -> Iterator[Any]:
    target = os.environ.get("STUDY_SCREENSHOTS")

    def shot(pg: Any, name: str) -> None:
        path = tmp_path / f"{name}.png"
        pg.screenshot(path=str(path), full_page=True)
        if target:
            Path(target).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, Path(target) / path.name)

    yield shot


def ready(pg: Any) -> None:
    """The page's script has wired its shortcuts (keys pressed before that do nothing)."""
    pg.wait_for_selector("html[data-study-ready]", state="attached")


def saved(pg: Any) -> None:
    pg.wait_for_selector("#save-status.saved", timeout=10_000)


def answers(study: Path, name: str) -> dict[str, dict[str, Any]]:
    with StudyStore(study) as st:
        a = next(x for x in st.annotators() if x.name == name)
        return st.answers_of(a.id)


def test_kitmus_annotator_by_keyboard(tmp_path: Path, suite: Path, page: Any, shots: Any
                                      ) -> None:
    study = tmp_path / "k.sqlite"
    create_kitmus_study(suite, study, n=4, conditions=["with-knowledge", "without-knowledge"],
                        gold_checks=1, annotators=["ann1", "ann2"], seed=3, progress=False)
    server = Server(study)
    try:
        page.goto(server.links["ann1"])
        shots(page, "kitmus-home")
        page.click("#start")
        page.wait_for_url("**/a/*/1")
        seen_conditions = set()
        for pos in range(1, 6):
            ready(page)
            seen_conditions.add(page.locator(".panel.knowledge").count())
            key = "0" if pos == 2 else "1"
            page.keyboard.press(key)
            saved(page)
            if pos == 2:
                page.reload()  # nothing lost on reload
                ready(page)
                assert page.locator("input[value=cant]").is_checked()
                shots(page, "kitmus-item")
            elif pos == 1:
                shots(page, "kitmus-item-knowledge" if page.locator(".panel.knowledge").count()
                      else "kitmus-item-task-only")
            page.keyboard.press("Enter")
            page.wait_for_url(f"**/a/*/{pos + 1}" if pos < 5 else "**/done")
        assert seen_conditions == {0, 1}  # both conditions shown
        assert "Thank you" in page.content()
        shots(page, "kitmus-done")
        given = answers(study, "ann1")
        assert len(given) == 5 and sum(v[""]["choice"] is None for v in given.values()) == 1
        page.goto(server.links["admin"])
        shots(page, "kitmus-admin")
        assert "Fleiss" in page.content()
    finally:
        server.stop()


def test_altentities_annotator_writes_expressions(tmp_path: Path, page: Any, shots: Any) -> None:
    study = tmp_path / "ae.sqlite"
    create_altentities_study([ENTITIES], study, n=2, method="uniform", annotators=["ann1"],
                             seed=5)
    server = Server(study)
    try:
        page.goto(server.links["ann1"])
        shots(page, "altentities-home")
        page.click("#start")
        shots(page, "altentities-read")
        assert page.locator(".entity.is-target").count() == 1
        page.click("#write")
        page.wait_for_selector("input[name=e1]")
        with StudyStore(study) as st:
            item = st.item(st.assignments(st.annotators()[0].id)[0][1])
        assert item is not None
        name = item.payload["shown"][item.payload["target_index"]]
        page.fill("input[name=e1]", f"I meant {name}")
        page.locator("input[name=e2]").focus()  # leaving the field saves it
        page.wait_for_selector("#warnings li")
        assert "names" in page.locator("#warnings").inner_text()
        shots(page, "altentities-warning")
        page.fill("input[name=e1]", "the one I read on the train")
        page.fill("input[name=e2]", "not the sad one")
        page.fill("input[name=e3]", "I was thinking of the older story")
        page.locator("input[name=e4]").focus()
        saved(page)
        page.reload()
        assert page.input_value("input[name=e2]") == "not the sad one"
        shots(page, "altentities-write")
        page.click("button[type=submit]")
        page.wait_for_url("**/a/*/2")
        given = answers(study, "ann1")
        assert given[item.id][""]["expressions"][:3] == [
            "the one I read on the train", "not the sad one", "I was thinking of the older story"]
        # Typing and closing the tab at once (before the save's pause): the text still arrives.
        other = page.context.new_page()
        other.goto(page.url + "?step=write")
        other.fill("input[name=e1]", "typed just before closing")
        other.close()
        for _ in range(100):
            got = answers(study, "ann1")
            if any(v[""]["expressions"][0] == "typed just before closing" for v in got.values()):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("what was typed just before the tab closed was lost")
    finally:
        server.stop()


def test_tne_annotator_two_stages(tmp_path: Path, page: Any, shots: Any) -> None:
    study = tmp_path / "tne.sqlite"
    create_tne_study(TNE_TINY, study, n=1, annotators=["ann1"], seed=0)
    server = Server(study)
    try:
        page.goto(server.links["ann1"])
        page.click("#start")
        page.wait_for_selector("text=Stage 1 · NP 1 of 6")
        for k, key in enumerate("nnnnn"):
            ready(page)
            page.keyboard.press(key)
            page.wait_for_selector(f"text=Stage 1 · NP {k + 2} of 6")
            if k == 3:
                shots(page, "tne-stage1")
        page.click("label.chain[data-chain=np3]")  # "The house" is the same as "the house"
        page.wait_for_selector("text=Stage 2 · NP 1 of 6")
        page.select_option("select[name='link:np1']", "on")
        saved(page)
        page.click("button[name=done]")
        page.wait_for_selector("text=Stage 2 · NP 2 of 6")
        page.click("button[name=done]")
        page.wait_for_selector("text=Stage 2 · NP 3 of 6")
        page.select_option("select[name='link:np3']", "of")
        page.select_option("select[name='link:np4']", "near")
        saved(page)
        page.hover("tr[data-chain=np3]")
        assert page.locator(".np.hl").count() == 2  # the chain's two mentions light up
        shots(page, "tne-stage2")
        page.reload()
        assert page.input_value("select[name='link:np3']") == "of"
        for k in range(3, 7):
            page.click("button[name=done]")
            if k < 6:
                page.wait_for_selector(f"text=Stage 2 · NP {k + 1} of 6")
        page.wait_for_url("**/done")  # the only document: the study is finished
        assert "Thank you" in page.content()
        page.goto(page.url.replace("/done", "/1"))
        page.wait_for_selector("text=This document is done")
        shots(page, "tne-done")
        given = answers(study, "ann1")["t1"]
        assert given["s1:np5"] == {"type": "same", "same_as": "np3"}
        assert given["s2:np2"]["links"] == {"np3": "of", "np4": "near"}
        assert all(given[f"s2:np{k}"]["done"] for k in range(6))
    finally:
        server.stop()
