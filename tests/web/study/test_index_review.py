"""Issue 22's study pages, through Flask's test client: the ``/study/`` index of mounted studies
and the home page's link to it, the AltEntities admin review table (filters, CSV of the rows
shown), and TNE chain styles that never repeat within a document."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from refbench.studies.export import CSV_COLUMNS
from refbench.studyfile.db import StudyStore
from refbench.tasks.tne.annotation.study_view import chain_style
from refbench.web.app import create_app
from refbench.web.catalog import ServeConfig
from refbench.web.serve import study_blueprints
from refbench.web.study.index import admin_token
from tests.studies.conftest import answer_everything, client, save, tokens


def web_client(tmp_path: Path, studies: list[Path]) -> Any:
    app = create_app(ServeConfig(data=[], store=tmp_path / "s.sqlite",
                                 index_dir=tmp_path / "index"),
                     extra_blueprints=study_blueprints(studies))
    app.testing = True
    return app.test_client()


def test_study_index_lists_mounted_studies_and_opens_admin(tmp_path: Path, ae_study: Path,
                                                           tne_study: Path) -> None:
    answer_everything(ae_study, client(ae_study))
    c = web_client(tmp_path, [ae_study, tne_study])
    page = c.get("/study/")
    assert page.status_code == 200 and "Content-Security-Policy" in page.headers
    body = page.data.decode()
    assert 'id="study-ae"' in body and 'id="study-tne"' in body
    assert "altentities-collection" in body and "tne-annotation" in body
    assert "built-in method" not in body
    assert "<td>4</td>\n  <td>2 <span" in body and "<td>2</td>\n  <td>2 <span" in body  # items
    assert "8 / 8 items done (100%)" in body  # 2 annotators x 4 items, all answered
    assert "0 / 4 items done (0%)" in body  # tne: 2 annotators x 2 documents, none yet
    for study in (ae_study, tne_study):  # the page itself never shows a token
        assert not any(t in body for t in tokens(study).values())
    assert c.get("/study").status_code in (301, 308)  # to /study/
    home = c.get("/").data.decode()
    assert 'href="/study/"' in home and "2 study files mounted" in home
    admin = tokens(ae_study)["admin"]
    for typed in (admin, f"  http://127.0.0.1:8000/study/ae/admin/{admin}/  "):
        r = c.post("/study/admin", data={"study": "ae", "token": typed})
        assert r.status_code == 303 and r.headers["Location"] == f"/study/ae/admin/{admin}/"
    assert c.get(f"/study/ae/admin/{admin}/").status_code == 200
    wrong = c.post("/study/admin", data={"study": "tne", "token": admin})  # another study's
    assert wrong.status_code == 403 and "not the admin token of tne" in wrong.data.decode()
    annotator = c.post("/study/admin", data={"study": "ae", "token": tokens(ae_study)["ann1"]})
    assert annotator.status_code == 403
    assert c.post("/study/admin", data={"study": "zz", "token": admin}).status_code == 400
    json = {"Accept": "application/json"}  # what the page's script asks for
    r = c.post("/study/admin", data={"study": "ae", "token": admin}, headers=json)
    assert r.get_json() == {"ok": True, "url": f"/study/ae/admin/{admin}/"}
    r = c.post("/study/admin", data={"study": "tne", "token": admin}, headers=json)
    assert r.status_code == 403 and "not the admin token" in r.get_json()["error"]


def test_index_with_one_study_and_without_any(tmp_path: Path, kitmus_study: Path) -> None:
    c = web_client(tmp_path, [kitmus_study])
    assert "kitmus-validation" in c.get("/study/").data.decode()
    admin = tokens(kitmus_study)["admin"]
    r = c.post("/study/admin", data={"study": "k", "token": admin})
    assert r.headers["Location"] == f"/study/admin/{admin}/"
    assert "1 study file mounted" in c.get("/").data.decode()
    bare = web_client(tmp_path, [])
    assert bare.get("/study/").status_code == 404
    assert "Human studies" not in bare.get("/").data.decode()
    assert client(kitmus_study).get("/study/").status_code == 200  # refbench study serve too


def test_admin_token_from_what_was_typed() -> None:
    assert admin_token("abcDEF_-12345678") == "abcDEF_-12345678"
    assert admin_token("http://h:1/study/x/admin/abcDEF_-12345678/") == "abcDEF_-12345678"
    assert admin_token("") == admin_token("short") == admin_token("<script>x</script>") == ""


def test_altentities_admin_review_table_filters_and_exports(ae_study: Path) -> None:
    c, tok = client(ae_study), tokens(ae_study)
    answer_everything(ae_study, c)
    with StudyStore(ae_study) as st:
        a2 = st.annotators()[1]
        pos, item_id, _ = st.assignments(a2.id)[0]
        item = st.item(item_id)
    assert item is not None
    name = item.payload["shown"][item.payload["target_index"]]
    save(c, tok["ann2"], pos + 1, {"e1": f"I meant {name}", "e2": "the one with the map",
                                   "e3": "the quiet one", "e4": "the older one"})
    admin = f"/admin/{tok['admin']}/"
    page = c.get(admin).data.decode()
    assert "built-in method" not in page
    assert "25 expressions for 4 of 4 items" in page  # 2 x 4 x 3, one item rewritten with 4
    assert "25 of 25 expressions shown; 1 flagged in all." in page
    assert page.count("<tr class=\"flagged\">") == 1 and "names " in page
    only = c.get(admin, query_string={"annotator": "ann1"}).data.decode()
    table = only[only.index('id="review"'):]
    assert "12 of 25 expressions shown (filtered)" in table and "<td>ann2</td>" not in table
    assert "<td>ann1</td>" in table
    flagged = c.get(admin, query_string={"flag": "flagged"}).data.decode()
    assert "1 of 25 expressions shown" in flagged and f"I meant {name}" in flagged
    found = c.get(admin, query_string={"q": "QUIET", "flag": "clean"}).data.decode()
    assert "1 of 25 expressions shown" in found
    assert "review.csv?flag=clean&amp;q=QUIET" in found  # the CSV link keeps the filters
    none = c.get(admin, query_string={"q": "no such words"}).data.decode()
    assert "No expression matches these filters." in none
    r = c.get(f"{admin}review.csv", query_string={"annotator": "ann2", "item": item_id})
    assert r.status_code == 200 and r.mimetype == "text/csv"
    got = list(csv.DictReader(io.StringIO(r.data.decode())))
    assert tuple(got[0]) == CSV_COLUMNS
    assert [g["label"] for g in got] == [f"I meant {name}", "the one with the map", "the quiet one",
                                         "the older one"]
    assert got[0]["flags"].startswith("names") and all(g["annotator"] == "ann2" for g in got)
    full = c.get(f"/admin/{tok['admin']}/export.csv").data.decode()
    assert full == c.get(f"{admin}review.csv").data.decode()  # unfiltered: the full export
    assert c.get(f"/admin/{tok['ann1']}/review.csv").status_code == 404


def test_choice_studies_have_no_review_table(kitmus_study: Path) -> None:
    c, tok = client(kitmus_study), tokens(kitmus_study)
    assert "Collected expressions" not in c.get(f"/admin/{tok['admin']}/").data.decode()


def test_tne_chain_styles_never_repeat_in_a_document() -> None:
    styles = [chain_style(k) for k in range(60)]  # TNE documents have at most ~55 NPs
    assert len(set(styles)) == 60
    assert styles[0] == "c0 p0" and styles[15] == "c0 p1"  # same colour, another pattern
