"""Issue 38's small things in the web app: dataset keys that say which dataset they are, the
chance line on every task's slice chart, and what a stemmed search matched."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import FIX
from tests.web.test_partial_and_names import _app, text

FIXTURES = FIX.parent


def test_a_dataset_key_says_which_dataset_it_is(tmp_path: Path) -> None:
    """``/data/test-json-cc3c7e68`` said nothing of the dataset: keys are task, folder and
    file name (then a short hash of the path, which keeps them unique and stable)."""
    from refbench.web.datasets import open_dataset

    recipes = tmp_path / "altentities" / "recipes"
    recipes.mkdir(parents=True)
    shutil.copy(FIXTURES / "altentities" / "books-recipes.json", recipes / "test.json")
    shutil.copy(FIXTURES / "knowref" / "knowref_sample.json", tmp_path / "knowref_test.json")
    assert re.fullmatch(r"altentities-recipes-test-[0-9a-f]{8}",
                        open_dataset(recipes / "test.json").key)
    assert re.fullmatch(r"knowref-[a-z0-9-]*test-[0-9a-f]{8}",
                        open_dataset(tmp_path / "knowref_test.json").key)
    suite = open_dataset(Path(__file__).resolve().parents[1] / "golden" / "kitmus-tiny")
    assert re.fullmatch(r"kitmus-tiny-[0-9a-f]{8}", suite.key)
    assert open_dataset(recipes / "test.json").key == open_dataset(recipes / "test.json").key


@pytest.mark.parametrize("data", [FIXTURES / "winograd" / "wsc-tiny.jsonl",
                                  FIXTURES / "knowref" / "knowref_sample.json",
                                  FIXTURES / "winogender"])
def test_slice_charts_draw_the_chance_line(tmp_path: Path, data: Path) -> None:
    """The bar charts of WSC, KnowRef and Winogender (two candidates each) get the dotted
    chance line the KITMUS figure has, on the run page and on compare."""
    app = _app([data], tmp_path, [("first", data, {}), ("random", data, {})])
    client = app.test_client()
    cat = app.config["CATALOG"]
    run = cat.runs()[0]
    page = text(client, f"/runs/{run.rid}")
    (url,) = [u.replace("&amp;", "&") for u in
              re.findall(r'<img src="(/charts/runs/[^"]+/slices\.svg)"', page)]
    svg = client.get(url).get_data()
    assert b'id="chance-0"' in svg
    ds = cat.dataset_of(run)
    sids = "&".join(f"sys={s.sid}" for s in cat.systems(ds))
    svg = client.get(f"/charts/compare/slices.svg?data={ds.key}&{sids}").get_data()
    assert b'id="chance-0"' in svg


def test_a_chart_without_one_number_of_candidates_draws_no_chance_line() -> None:
    from refbench.web import charts

    groups = [("pronoun", [("he", {"a": (0.5, 10)})])]
    assert b'id="chance-0"' not in charts.slice_chart(groups, ["a"], title="t")
    assert b'id="chance-0"' in charts.slice_chart(groups, ["a"], title="t", chance=0.5)


def test_a_stemmed_search_says_which_forms_it_matched(client: Any, app: Any) -> None:
    """"nurses" found "nursed" and the page did not say why: it now lists the forms the
    search matched on the page when they are not only the words typed."""
    from refbench.web.query import stemmed_forms
    from tests.web.test_routes import key

    body = client.get(f"/data/{key(app, 'tne')}?q=crowds").get_data(as_text=True)
    forms = re.search(r'<p class="muted stems" id="matched-forms">(.*?)</p>', body, re.S)
    assert forms is not None and "<mark>crowd</mark>" in forms[1]
    rows = [{"snippet": [("the ", False), ("nursed", True)]},
            {"snippet": [("Nurses", True)]}]
    assert stemmed_forms(rows, "nurses") == ["nurses", "nursed"]  # the typed form first
    assert stemmed_forms(rows[1:], "nurses") == []  # only what was typed: nothing to say


def test_the_15th_instance_says_instance_15(tmp_path: Path) -> None:
    """"instance 14 of 20" on the 15th instance: the page counts from 1 (its URL's n from 0),
    and so do the list's "#" column and the "go to" box."""
    import json

    data = tmp_path / "wsc-20.jsonl"
    data.write_text("".join(json.dumps({
        "qID": f"q{k}", "sentence": f"Anna thanked Beth {k} times because _ was kind.",
        "option1": "Anna", "option2": "Beth", "answer": "2"}) + "\n" for k in range(20)))
    app = _app([data], tmp_path, [])
    client = app.test_client()
    (ds,) = app.config["CATALOG"].datasets.values()
    page = text(client, f"/data/{ds.key}/14")
    assert "instance 15 of 20" in page and "instance 14 of 20" not in page
    assert 'min="1" max="20" value="15"' in page
    assert client.get(f"/data/{ds.key}/jump?i=15").headers["Location"].endswith(
        f"/data/{ds.key}/14")
    assert client.get(f"/data/{ds.key}/jump?i=21").status_code == 400
    listing = text(client, f"/data/{ds.key}")
    assert re.search(rf'href="/data/{ds.key}/14[^"]*">15</a>', listing)
