"""Study pages through Flask's test client: the flow of each study type, escaping, headers,
tokens that reach only their own answers, bad input as 400/404."""

from __future__ import annotations

import re
from pathlib import Path

from markupsafe import escape

from refbench.studyfile.db import StudyStore
from refbench.tasks.altentities.study import create_altentities_study
from refbench.tasks.kitmus.study import create_kitmus_study
from refbench.tasks.tne.annotation.study import chains
from tests.studies.conftest import ENTITIES, answer_everything, client, save, tokens


def test_kitmus_pages_answers_and_navigation(kitmus_study: Path) -> None:
    c, tok = client(kitmus_study), tokens(kitmus_study)
    t = tok["ann1"]
    home = c.get(f"/a/{t}/")
    assert home.status_code == 200 and b"Start with item 1" in home.data
    page = c.get(f"/a/{t}/1")
    html = page.data.decode()
    assert "Who does “" in html and "can't say" in html and 'class="pronoun"' in html
    csp = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert "<script>" not in html.split("</head>")[1]  # no inline script anywhere
    body = save(c, t, 1, {"choice": "cant"})
    assert body["complete"] and body["next"] == f"/a/{t}/2"
    r = c.post(f"/a/{t}/1", data={"choice": "0"})
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/a/{t}/2")
    with StudyStore(kitmus_study) as st:
        a = st.annotators()[0]
        item_id = st.assignments(a.id)[0][1]
        assert st.answers_of(a.id)[item_id][""] == {"choice": 0}
    bad = c.post(f"/a/{t}/1/answer", json={"fields": {"choice": "7"}})
    assert bad.status_code == 400 and not bad.get_json()["ok"]
    assert c.post(f"/a/{t}/1/answer", data="nope").status_code == 400
    assert c.post(f"/a/{t}/1", data={"choice": "x"}).status_code == 400
    assert c.get(f"/a/{t}/999").status_code == 404
    assert c.get(f"/a/{t}/0").status_code == 404
    # The last item leads to the finish page.
    with StudyStore(kitmus_study) as st:
        n = len(st.assignments(st.annotators()[0].id))
    assert save(c, t, n, {"choice": "0"})["next"] == f"/a/{t}/done"
    assert b"items are done" in c.get(f"/a/{t}/done").data


def test_tokens_reach_only_their_own_answers(tmp_path: Path, suite: Path) -> None:
    out = tmp_path / "k.sqlite"
    create_kitmus_study(suite, out, n=6, conditions=["with-knowledge"], gold_checks=0,
                        annotators=["ann1", "ann2"], seed=0, overlap=1, progress=False)
    c, tok = client(out), tokens(out)
    with StudyStore(out) as st:
        a1, a2 = st.annotators()
        mine = {i for _, i, _ in st.assignments(a1.id)}
        theirs = {i for _, i, _ in st.assignments(a2.id)}
    assert mine and theirs and not mine & theirs
    for pos in range(1, len(mine) + 1):
        save(c, tok["ann1"], pos, {"choice": "0"})
    with StudyStore(out) as st:
        assert set(st.answers_of(a1.id)) == mine
        assert st.answers_of(a2.id) == {}
    t1 = tok["ann1"]
    for wrong in ("x" * 32, t1[:-1] + ("B" if t1[-1] == "A" else "A"), t1.upper()):
        assert c.get(f"/a/{wrong}/1").status_code == 404
    assert c.get(f"/admin/{tok['ann1']}/").status_code == 404
    assert c.get(f"/a/{tok['admin']}/").status_code == 404
    assert c.get(f"/admin/{tok['admin']}/").status_code == 200
    assert c.get(f"/admin/{tok['admin']}/export.exe").status_code == 404


def test_admin_shows_progress_agreement_and_exports(kitmus_study: Path) -> None:
    c, tok = client(kitmus_study), tokens(kitmus_study)
    assert b"No answers yet" in c.get(f"/admin/{tok['admin']}/").data
    answer_everything(kitmus_study, c)
    html = c.get(f"/admin/{tok['admin']}/").data.decode()
    assert "Fleiss" in html and "with-knowledge" in html and "without-knowledge" in html
    assert "made from 1 source<" in html
    assert "Gold checks" in html and "2 / 2 correct" in html
    csv_text = c.get(f"/admin/{tok['admin']}/export.csv").data.decode()
    assert csv_text.splitlines()[0] == "item,annotator,label,unit,condition,gold,gold_check,flags"
    assert len(csv_text.splitlines()) == 1 + 3 * 10
    assert c.get(f"/admin/{tok['admin']}/export.json").get_json()["study"]["kind"] == \
        "kitmus-validation"
    assert c.get("/study-static/study.js").status_code == 200
    assert c.get("/study-static/study.css").headers["Content-Type"].startswith("text/css")


def test_altentities_flow_escaping_and_flags(tmp_path: Path) -> None:
    out = tmp_path / "ae.sqlite"
    create_altentities_study([ENTITIES], out, n=15, method="uniform", annotators=["ann1"],
                             seed=2)
    c, tok = client(out), tokens(out)
    t = tok["ann1"]
    with StudyStore(out) as st:
        order = st.assignments(st.annotators()[0].id)
        items = {it.id: it for it in st.items()}
    pos = next(k + 1 for k, (_, i, _) in enumerate(order)
               if any("<" in ch["name"] or "<" in ch["description"]
                      for ch in items[i].payload["choices"]))
    item = items[order[pos - 1][1]]
    read = c.get(f"/a/{t}/{pos}").data.decode()
    assert "<script>alert" not in read and "&lt;script&gt;alert(1)&lt;/script&gt;" in read
    assert "<b>Over</b>" not in read
    assert "Do you mean" in read and 'class="target"' in read and "I have read both" in read
    assert "name=\"e1\"" not in read  # memory recall: read first, then write
    write = c.get(f"/a/{t}/{pos}?step=write").data.decode()
    assert 'name="e1"' in write and "Bob means" in write
    assert "class=\"entity" not in write  # descriptions hidden while writing
    target = item.payload["choices"][item.payload["target_index"]]
    copied = " ".join(target["description"].split()[:6])
    body = save(c, t, pos, {"e1": f"the {item.payload['shown'][0]} one", "e2": copied})
    assert not body["complete"]
    assert any("names" in w for w in body["warnings"])
    assert any("copies" in w for w in body["warnings"])
    # Sent back with fewer than 3: the page says what is missing and keeps what was typed.
    assert body["next"].endswith("step=write&missing=1")
    assert body["progress"] == {"done": 0, "total": len(order)}
    back = c.get(body["next"]).data.decode()
    assert "you have written 2, so 1 more is needed" in back
    assert f'value="{escape(copied)}"' in back and 'aria-invalid="true" autofocus' in back
    assert back.count('aria-invalid="true"') == 1  # only the one field still needed
    plain = c.post(f"/a/{t}/{pos}", data={"e1": "the one set by the sea"})  # no script
    assert plain.status_code == 303 and plain.headers["Location"].endswith("missing=1")
    back = c.get(plain.headers["Location"]).data.decode()
    assert "2 more are needed" in back and 'value="the one set by the sea"' in back
    assert "needed" not in c.get(f"/a/{t}/{pos}?step=write").data.decode()  # only when sent back
    body = save(c, t, pos, {"e1": "the one set by the sea", "e2": "not the cheerful one",
                            "e3": "I meant the older book"})
    assert body["complete"] and body["warnings"] == [] and not body["next"].endswith("write")
    assert body["progress"] == {"done": 1, "total": len(order)}  # the header's bar moves at once
    assert "is needed" not in c.get(f"/a/{t}/{pos}?step=write&missing=1").data.decode()
    again = c.get(f"/a/{t}/{pos}").data.decode()
    assert 'value="not the cheerful one"' in again  # a reload shows what was typed
    too_many = c.post(f"/a/{t}/{pos}/answer", json={"fields": {f"e{i}": "x" for i in range(7)}})
    assert too_many.status_code == 200  # only e1..e5 are read
    long_one = c.post(f"/a/{t}/{pos}/answer", json={"fields": {"e1": "x" * 301}})
    assert long_one.status_code == 400


def test_tne_two_stages_chains_and_navigation(tne_study: Path) -> None:
    c, tok = client(tne_study), tokens(tne_study)
    t = tok["ann1"]
    first = c.get(f"/a/{t}/1").data.decode()
    assert "Stage 1 · NP 1 of 6" in first and 'data-np="np0"' in first
    early = c.post(f"/a/{t}/1/answer", json={"fields": {"stage": "2", "np": "np0", "done": "1"}})
    assert early.status_code == 400 and "stage 1" in early.get_json()["error"]
    bad = c.post(f"/a/{t}/1/answer", json={"fields": {"stage": "1", "np": "np1",
                                                     "type": "same:np4"}})
    assert bad.status_code == 400  # 'same as' must point back
    body = save(c, t, 1, {"stage": "1", "np": "np0", "type": "new"})
    assert body["next"] == f"/a/{t}/1?stage=1&np=np1"
    for np_id, kind in (("np1", "new"), ("np2", "new"), ("np3", "new"), ("np4", "new"),
                        ("np5", "same:np3")):
        body = save(c, t, 1, {"stage": "1", "np": np_id, "type": kind})
    assert body["next"] == f"/a/{t}/1?stage=2&np=np0"
    page = c.get(f"/a/{t}/1?stage=2&np=np2").data.decode()
    assert "Stage 2 · NP 3 of 6" in page and 'name="link:np3"' in page
    assert "the house · The house" in page  # the chain lists its mentions
    assert 'name="link:np2"' not in page  # never linked to its own chain
    body = save(c, t, 1, {"stage": "2", "np": "np2", "link:np3": "of"})
    assert body["next"] == f"/a/{t}/1?stage=2&np=np2"  # autosave: not done yet
    body = save(c, t, 1, {"stage": "2", "np": "np2", "link:np3": "of", "done": "1"})
    assert body["next"] == f"/a/{t}/1?stage=2&np=np3"
    body = save(c, t, 1, {"stage": "2", "np": "np2", "link:np3": "of", "link:np4": "near"})
    with StudyStore(tne_study) as st:
        a = st.annotators()[0]
        given = st.answers_of(a.id)["t1"]
    assert given["s2:np2"] == {"links": {"np3": "of", "np4": "near"}, "done": True}  # sticky
    # The TNE document in the page escapes its text.
    second = c.get(f"/a/{t}/2").data.decode()
    assert "<script>alert(1)</script>" not in second and "&lt;script&gt;" in second


def test_chains_join_and_survive_edits() -> None:
    ids = ["a", "b", "c", "d"]
    s1 = {"a": {"type": "new"}, "b": {"type": "same", "same_as": "a"},
          "c": {"type": "new"}, "d": {"type": "same", "same_as": "c"}}
    assert chains(ids, s1) == {"a": "a", "b": "a", "c": "c", "d": "c"}
    s1["c"] = {"type": "same", "same_as": "b"}  # c (and so d) join a's chain
    assert chains(ids, s1) == {"a": "a", "b": "a", "c": "a", "d": "a"}
    assert chains(ids, {"b": {"type": "same", "same_as": "a"}}) == {"b": "b"}


def test_every_kind_renders_its_admin_page(ae_study: Path, tne_study: Path) -> None:
    for study, needle in ((ae_study, "expressions for"), (tne_study, "CoNLL F1")):
        c, tok = client(study), tokens(study)
        answer_everything(study, c)
        html = c.get(f"/admin/{tok['admin']}/").data.decode()
        assert needle in html, study
        assert re.search(r"<td>2 / 2</td>", html) or "4 / 4" in html


def test_blueprint_mounts_in_another_app_beside_a_second_study(kitmus_study: Path,
                                                                tne_study: Path) -> None:
    from flask import Flask

    from refbench.web.study.blueprint import make_study_blueprint

    app = Flask("host")
    app.register_blueprint(make_study_blueprint(kitmus_study, name="kitmus"),
                           url_prefix="/study/k")
    app.register_blueprint(make_study_blueprint(tne_study, name="tne"), url_prefix="/study/t")

    @app.get("/")
    def home() -> str:
        return "host app"

    c = app.test_client()
    k, t = tokens(kitmus_study)["ann1"], tokens(tne_study)["ann1"]
    page = c.get(f"/study/k/a/{k}/1").data.decode()
    assert "/study/k/study-static/study.js" in page and f"/study/k/a/{k}/1/answer" in page
    assert c.get("/study/k/study-static/study.js").status_code == 200
    assert c.post(f"/study/k/a/{k}/1/answer", json={"fields": {"choice": "cant"}}).get_json()[
        "next"] == f"/study/k/a/{k}/2"
    assert "Stage 1" in c.get(f"/study/t/a/{t}/1").data.decode()
    assert c.get(f"/study/t/a/{k}/1").status_code == 404  # a token belongs to its own study
    assert c.get("/").data == b"host app"
