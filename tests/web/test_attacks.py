"""Issue 23's attacks on ``refbench serve``, each as a request (and issue 22's search strings):
foreign Host headers and the redirect that echoed them, cross-origin posts, huge bodies,
numbers past 64 bits, costly FTS5 queries (caps, and the time budget on a big synthetic
index), tokens in the access log, symbolic links out of a data folder, and a study served on a
non-loopback host without the data."""

from __future__ import annotations

import io
import logging
import os
import shutil
import sqlite3
import threading
from pathlib import Path
from typing import Any
from urllib.request import Request, urlopen

import pytest
from flask import Flask

from refbench.web.app import create_app
from refbench.web.catalog import ServeConfig
from refbench.web.datasets import discover
from refbench.web.query import (
    BadQuery,
    Lister,
    ListQuery,
    check_advanced,
    match_expression,
    plain_match,
)
from tests.conftest import ROOT

FIX = ROOT / "tests" / "fixtures" / "web"
PUNCT = FIX / "winograd-punctuation.jsonl"
SUITE = ROOT / "tests" / "golden" / "kitmus-tiny"
TYPED = ("Dehner's", "e-mail", "U.S.", "co-founder", "O'Brien")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    root = tmp_path_factory.mktemp("attacks")
    shutil.copy(PUNCT, root / PUNCT.name)
    shutil.copytree(SUITE, root / "suite", ignore=shutil.ignore_patterns(
        "*-text*", "DATASHEET.md", "stats.json"))
    config = ServeConfig(data=[root / PUNCT.name, root / "suite"],
                         store=root / "store" / "results.sqlite", index_dir=root / "index")
    return create_app(config)


def key(app: Flask, task: str) -> str:
    cat = app.config["CATALOG"]
    return next(k for k, d in cat.datasets.items() if d.task.name == task)


def test_foreign_host_is_refused_and_never_echoed(app: Flask) -> None:
    c = app.test_client()
    assert c.get("/", headers={"Host": "localhost:8000"}).status_code == 200
    assert c.get("/", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    assert c.get("/", headers={"Host": "[::1]:8000"}).status_code == 200
    r = c.get("/", headers={"Host": "evil.example"})
    assert r.status_code == 400
    r = c.get("/static//favicon.svg", headers={"Host": "evil.example"})
    assert r.status_code == 400 and "evil.example" not in r.headers.get("Location", "")
    r = c.get("/static//favicon.svg", headers={"Host": "localhost"})
    assert r.status_code == 308 and "evil" not in r.headers["Location"]


def test_trusted_host_option_adds_a_name(tmp_path: Path) -> None:
    from refbench.web.guard import allowed_hosts

    hosts = allowed_hosts("0.0.0.0", ["study.example.org"])
    assert "0.0.0.0" not in hosts and "study.example.org" in hosts
    a = create_app(ServeConfig(store=tmp_path / "s.sqlite"), hosts=hosts)
    c = a.test_client()
    assert c.get("/", headers={"Host": "study.example.org"}).status_code == 200
    assert c.get("/", headers={"Host": "other.example.org"}).status_code == 400


def test_numbers_past_64_bits_are_404_or_400(app: Flask) -> None:
    c = app.test_client()
    k = key(app, "kitmus")
    big = "9" * 30
    assert c.get(f"/data/{k}/{big}").status_code == 404
    assert c.get(f"/data/{k}/{2**63}").status_code == 404
    assert c.get(f"/data/{k}?after={big}").status_code == 400
    assert c.get(f"/data/{k}?before=1.{big}").status_code == 400
    assert c.get(f"/data/{k}/{big}/np/x").status_code == 404


@pytest.mark.parametrize("typed", TYPED)
def test_what_people_type_finds_results(app: Flask, typed: str) -> None:
    c = app.test_client()
    r = c.get(f"/data/{key(app, 'winograd')}", query_string={"q": typed})
    assert r.status_code == 200, r.get_data(as_text=True)[-400:]
    assert 'id="matching">1<' in r.get_data(as_text=True), typed


def test_advanced_mode_still_takes_fts5_syntax(app: Flask) -> None:
    c = app.test_client()
    k = key(app, "winograd")
    r = c.get(f"/data/{k}", query_string={"q": "plumb* OR e-mail", "mode": "advanced"})
    assert r.status_code == 400  # FTS5 reads e-mail as column e minus mail, as SQLite does
    r = c.get(f"/data/{k}", query_string={"q": 'plumb* OR "e-mail" OR NEAR(delegate mayor, 3)',
                                          "mode": "advanced"})
    assert r.status_code == 200 and 'id="matching">3<' in r.get_data(as_text=True)
    r = c.get(f"/data/{k}", query_string={"q": "plumb* OR email", "mode": "plain"})
    assert 'id="matching">0<' in r.get_data(as_text=True)  # plain: both words, literally


def test_kitmus_task_and_knowledge_text_are_searched_apart(app: Flask) -> None:
    c = app.test_client()
    k = key(app, "kitmus")
    page = c.get(f"/data/{k}").get_data(as_text=True)
    assert 'name="field"' in page and "knowledge text" in page
    counts = {}
    for field in ("", "task", "knowledge"):
        r = c.get(f"/data/{k}", query_string={"q": "job", "field": field})
        assert r.status_code == 200
        body = r.get_data(as_text=True)
        counts[field] = int(body.split('id="matching">')[1].split("<")[0])
    assert counts[""] >= max(counts["task"], counts["knowledge"]) > 0
    assert c.get(f"/data/{k}?q=job&field=payload").status_code == 400
    assert 'name="field"' not in c.get(f"/data/{key(app, 'winograd')}").get_data(as_text=True)


def test_hostile_queries_are_capped() -> None:
    letters = "abcdefghijklmnopqrstuvwxyz"
    hostile = "NEAR(" + " ".join(f"{letters[k % 26]}*" for k in range(160)) + ", 500)"
    assert len(hostile) >= 480
    for q in (hostile, "NEAR(ab* cd*, 500)", "ab* cd* ef* gh* ij*", "a*",
              " ".join(["word"] * 17), "NEAR(a b) NEAR(c d) NEAR(e f)"):
        with pytest.raises(BadQuery):
            check_advanced(q)
    check_advanced('NEAR(ab* "the city tour", 10) OR harbour NOT marina')
    with pytest.raises(BadQuery):
        plain_match(" ".join(["word"] * 17))
    assert plain_match("O'Brien e-mail \"x") == '"O\'Brien" "e-mail" """x"'
    assert match_expression("-- ''", "plain", None) == ""
    assert match_expression("job", "plain", "t_task") == 't_task : ("job")'


def test_hostile_query_request_is_a_quick_400(app: Flask) -> None:
    c = app.test_client()
    letters = "abcdefghijklmnopqrstuvwxyz"
    hostile = "NEAR(" + " ".join(f"{letters[k % 26]}*" for k in range(160)) + ", 500)"
    r = c.get(f"/data/{key(app, 'kitmus')}", query_string={"q": hostile, "mode": "advanced"})
    assert r.status_code == 400 and "prefix" in r.get_data(as_text=True)


def test_time_budget_stops_a_slow_search_with_a_400(tmp_path: Path) -> None:
    """A big synthetic FTS index (every row holding the same common words) and a query within
    the caps: with a tiny budget the request ends in a 400, not after the whole MATCH."""
    db = sqlite3.connect(tmp_path / "big.sqlite")
    db.execute("CREATE TABLE items (n INTEGER PRIMARY KEY, iid TEXT, gold INTEGER, "
               "gold_label TEXT, title TEXT)")
    db.execute("CREATE VIRTUAL TABLE fts USING fts5(body, content='')")
    words = [f"w{k}" for k in range(400)]
    rows = [(n, " ".join(words[(n * 7 + j) % 400] for j in range(60))) for n in range(60000)]
    db.executemany("INSERT INTO fts (rowid, body) VALUES (?, ?)", rows)
    db.executemany("INSERT INTO items VALUES (?, ?, 0, '', '')",
                   [(n, str(n)) for n, _ in rows])
    db.commit()
    query = ListQuery(q="NEAR(w1* w2* w3* w4* w5 w6 w7 w8, 50) OR NEAR(w9 w10 w11, 50)",
                      mode="advanced")
    with pytest.raises(BadQuery, match="took longer"):
        lister = Lister(db, query, budget_s=0.001)
        lister.count()
    assert Lister(db, ListQuery(q="w5 w6"), budget_s=30).count() > 0


def test_match_runs_once_per_request(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """The count, every facet count and the page read one MATCH's result (the page's
    snippets run the MATCH once more, over the texts of the page's rows alone)."""
    statements: list[str] = []
    cat = app.config["CATALOG"]
    original = cat.index.connect

    def traced(ds: Any) -> sqlite3.Connection:
        db = original(ds)
        db.set_trace_callback(statements.append)
        return db

    monkeypatch.setattr(cat.index, "connect", traced)
    r = app.test_client().get(f"/data/{key(app, 'kitmus')}?q=job")
    assert r.status_code == 200
    assert sum("FROM fts WHERE fts MATCH" in s for s in statements) == 1
    assert sum("FROM temp.snip WHERE snip MATCH" in s for s in statements) == 1
    assert sum("MATCH" in s for s in statements) == 2


def test_oversized_body_is_413_before_reading(app: Flask) -> None:
    class Unread(io.BytesIO):
        """A 200 MB body that fails the test if the server reads any of it."""

        def read(self, size: int = -1) -> bytes:
            raise AssertionError("the body was read")

    r = app.test_client().post("/tne-demo", input_stream=Unread(),
                               content_type="application/json",
                               environ_overrides={"CONTENT_LENGTH": str(200 * 1024 * 1024)})
    assert r.status_code == 413


def test_cross_origin_post_is_refused(app: Flask) -> None:
    c = app.test_client()
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"},
                    {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}):
        assert c.post("/tne-demo", data={"text": "x"}, headers=headers).status_code == 403
    same = c.post("/tne-demo", data={"text": "x"}, headers={"Origin": "http://localhost",
                                                            "Sec-Fetch-Site": "same-origin"})
    assert same.status_code != 403
    # A no-referrer page's own form post: Origin null, but Sec-Fetch-Site (set by the browser,
    # never by a page) says same-origin.
    own = c.post("/tne-demo", data={"text": "x"}, headers={"Origin": "null",
                                                           "Sec-Fetch-Site": "same-origin"})
    assert own.status_code != 403
    null_cross = c.post("/tne-demo", data={"text": "x"}, headers={"Origin": "null",
                                                                  "Sec-Fetch-Site": "cross-site"})
    assert null_cross.status_code == 403


def test_symlinks_out_of_a_data_folder_are_skipped(tmp_path: Path) -> None:
    data, elsewhere = tmp_path / "data", tmp_path / "elsewhere"
    data.mkdir()
    elsewhere.mkdir()
    shutil.copy(PUNCT, elsewhere / "secret.jsonl")
    shutil.copy(PUNCT, data / "inside.jsonl")
    os.symlink(elsewhere / "secret.jsonl", data / "innocent.jsonl")
    os.symlink("/etc/passwd", data / "passwd.tsv")
    os.symlink(elsewhere, data / "outdir")
    os.symlink(data / "inside.jsonl", data / "alias.jsonl")  # inside: followed, shown once
    (data / "loop").mkdir()
    os.symlink(data, data / "loop" / "back")  # a loop: resolves inside, walked once
    found = discover([data])
    assert [d.path for d in found.datasets] == [(data / "inside.jsonl").resolve()]
    notes = [why for _, why in found.skipped if "symbolic link" in why]
    assert len(notes) == 1
    assert "innocent.jsonl" in notes[0] and "passwd.tsv" in notes[0] and "outdir" in notes[0]
    assert "/etc/passwd" not in str(found.skipped) and "secret" not in str(found.skipped)


def test_home_page_never_names_a_link_target(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(PUNCT, data / "inside.jsonl")
    os.symlink("/etc/passwd", data / "passwd.tsv")
    a = create_app(ServeConfig(data=[data], store=tmp_path / "s.sqlite",
                               index_dir=tmp_path / "i"))
    body = a.test_client().get("/").get_data(as_text=True)
    assert "passwd.tsv" in body and "/etc/passwd" not in body


def test_access_log_shows_the_route_not_the_token(tmp_path: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    from werkzeug.serving import make_server

    from refbench.tasks.kitmus.study import create_kitmus_study
    from refbench.web.guard import RedactingHandler
    from refbench.web.serve import study_blueprints
    from tests.studies.conftest import make_suite, tokens

    suite = make_suite(tmp_path / "suite", variants=["background-pretrain"], entities=[2],
                       size=4, formats=["jsonl"])
    study = tmp_path / "k.sqlite"
    create_kitmus_study(suite, study, n=2, conditions=["with-knowledge"], gold_checks=0,
                        annotators=["ann1"], seed=1, progress=False)
    a = create_app(ServeConfig(store=tmp_path / "s.sqlite"),
                   extra_blueprints=study_blueprints([study]))
    server = make_server("127.0.0.1", 0, a, threaded=True, request_handler=RedactingHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    token = tokens(study)["ann1"]
    try:
        with caplog.at_level(logging.INFO, logger="werkzeug"):
            for path in (f"/study/a/{token}/", f"/study/a/{token}/1"):
                req = Request(f"http://127.0.0.1:{server.port}{path}")
                with urlopen(req) as resp:
                    assert resp.status == 200
    finally:
        server.shutdown()
        thread.join()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "/study/a/<token>/1" in logged and token not in logged


def test_non_loopback_study_serves_only_the_study(tmp_path: Path) -> None:
    from refbench.tasks.kitmus.study import create_kitmus_study
    from refbench.web.guard import allowed_hosts
    from refbench.web.serve import studies_only, study_blueprints
    from refbench.web.study.server import studies_app
    from tests.studies.conftest import make_suite, tokens

    assert studies_only("0.0.0.0", True, False)
    assert not studies_only("0.0.0.0", True, True)  # --expose-data
    assert not studies_only("127.0.0.1", True, False)
    assert not studies_only("0.0.0.0", False, False)
    suite = make_suite(tmp_path / "suite", variants=["background-pretrain"], entities=[2],
                       size=4, formats=["jsonl"])
    study = tmp_path / "k.sqlite"
    create_kitmus_study(suite, study, n=2, conditions=["with-knowledge"], gold_checks=0,
                        annotators=["ann1"], seed=1, progress=False)
    a = studies_app(study_blueprints([study]),
                    hosts=allowed_hosts("0.0.0.0", ["lab.example.org"]))
    c = a.test_client()
    host = {"Host": "lab.example.org:8000"}
    token = tokens(study)["ann1"]
    assert c.get(f"/study/a/{token}/", headers=host).status_code == 200
    for path in ("/runs/s1", "/leaderboard", "/compare", "/tne-demo", "/data/x"):
        assert c.get(path, headers=host).status_code == 404, path
    assert c.get(f"/study/a/{token}/", headers={"Host": "evil.example"}).status_code == 400
