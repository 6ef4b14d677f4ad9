"""The task catalogue (docs/tasks/) says what each task's card says: every registered benchmark
has its page, the page is what ``scripts/gen_catalogue.py`` makes of the card, and, checked on
its own, names the card's licence, citation (BibTeX key and title), formats, metric keys and
every known defect of the release."""

from __future__ import annotations

import re

import pytest

from refbench.tasks.base import Task
from refbench.tasks.catalogue import catalogue_page
from refbench.tasks.lookup import all_tasks
from tests.conftest import ROOT

DOCS = ROOT / "docs" / "tasks"
TASKS = {task.name: task for task in all_tasks()}


def flat(text: str) -> str:
    return " ".join(text.split())


def disagreements(page: str, task: Task) -> list[str]:
    """What the card says that ``page`` does not (empty: they agree)."""
    card, cat, text = task.card, task.card.catalogue, flat(page)
    wanted = {"licence": cat.get("licence", ""), "licence identifier": f"`{card.licence}`",
              "citation": cat.get("citation", ""), "formats read": cat.get("formats_read", ""),
              "formats written": cat.get("formats_written", ""), "metrics": cat.get("metrics", "")}
    if card.bibtex:
        key = re.match(r"\s*@\w+\{([^,\s]+),", card.bibtex)
        title = re.search(r"title\s*=\s*[\"{](.+?)[\"}],\s*\n\s*\w+\s*=", card.bibtex, re.S)
        assert key and title, f"{task.name}: unreadable BibTeX in the card"
        wanted |= {"BibTeX key": key.group(1), "BibTeX title": title.group(1)}
    wanted |= {f"metric key {m}": f"`{m}`" for m in task.headline_metrics}
    wanted |= {f"known defect {i + 1}": d for i, d in enumerate(cat.get("known_defects", ()))}
    return [what for what, said in wanted.items() if said and flat(said) not in text]


@pytest.mark.parametrize("name", sorted(TASKS))
def test_every_task_has_its_page_as_generated_from_its_card(name: str) -> None:
    page = DOCS / f"{name}.md"
    assert page.is_file(), f"no catalogue page for {name}: python scripts/gen_catalogue.py"
    text = page.read_text(encoding="utf-8")
    assert text == catalogue_page(TASKS[name]), (
        f"{page} differs from its card: edit the card, then python scripts/gen_catalogue.py")
    assert disagreements(text, TASKS[name]) == []


def test_no_page_for_a_task_that_is_not_registered() -> None:
    pages = {p.stem for p in DOCS.glob("*.md")} - {"index"}
    assert pages == set(TASKS)


def test_the_pages_are_in_the_toctree() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    toctree = re.search(r"```\{toctree\}(.*?)```", index, re.S)
    assert toctree, "docs/tasks/index.md has no toctree"
    entries = {line.strip() for line in toctree.group(1).splitlines()
               if line.strip() and not line.strip().startswith(":")}
    assert "*" in entries or set(TASKS) <= entries


def test_a_page_that_drops_or_changes_what_the_card_says_is_caught() -> None:
    task = TASKS["knowref"]
    page = catalogue_page(task)
    defect = task.card.catalogue["known_defects"][0]
    assert disagreements(flat(page).replace(flat(defect), ""), task) == ["known defect 1"]
    assert disagreements(page.replace("`cc-by-sa-3.0`", "`mit`"), task) == ["licence identifier"]
    assert "BibTeX key" in disagreements(page.replace("emami-etal-2019-knowref", "x"), task)
    assert disagreements(page.replace("`consistency`", ""), task) == ["metric key consistency"]
