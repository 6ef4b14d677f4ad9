"""Every page type through Flask's test client, on the fixture world (see conftest.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest

XSS = ("<script>alert(", "<img src=x onerror")


def key(app: Any, task: str, *, suite: bool = False) -> str:
    for ds in app.config["CATALOG"].datasets.values():
        if ds.task.name == task and (ds.kind == "kitmus-suite") == suite:
            return str(ds.key)
    raise AssertionError(f"no {task} dataset")


def system_ids(app: Any, dataset_key: str) -> dict[str, str]:
    cat = app.config["CATALOG"]
    return {s.label: s.sid for s in cat.systems(cat.datasets[dataset_key])}


def text(resp: Any) -> str:
    return str(resp.get_data(as_text=True))


def assert_escaped(body: str) -> None:
    for raw in XSS:
        assert raw not in body, f"unescaped {raw!r} in the page"


def test_home_lists_every_dataset_and_run(client: Any, app: Any) -> None:
    resp = client.get("/")
    assert resp.status_code == 200
    body = text(resp)
    for name in ("kitmus-xss.jsonl", "knowref-xss.json", "gap-xss.tsv", "winograd-xss.jsonl",
                 "altentities-xss.json", "tne-xss.jsonl", ">suite<"):
        assert name in body
    assert "knowledge-match" in body and "adj-backward" in body
    csp = resp.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert resp.headers["X-Content-Type-Options"] == "nosniff"


def test_pages_make_no_outside_request(client: Any, app: Any) -> None:
    for url in ("/", f"/data/{key(app, 'tne')}/0", "/leaderboard"):
        body = text(client.get(url))
        assert not re.search(r'(src|href)="(https?:)?//', body), url
    assert client.get("/static/vendor/htmx.min.js").status_code == 200


@pytest.mark.parametrize("task", ["kitmus", "knowref", "gap", "winograd", "altentities", "tne"])
def test_dataset_and_instance_pages_escape_dataset_text(client: Any, app: Any,
                                                        task: str) -> None:
    k = key(app, task)
    listing = client.get(f"/data/{k}")
    assert listing.status_code == 200
    assert_escaped(text(listing))
    found_markup = False
    for n in range(3):
        resp = client.get(f"/data/{k}/{n}")
        if resp.status_code == 404:
            break
        assert resp.status_code == 200
        body = text(resp)
        assert_escaped(body)
        found_markup |= "&lt;script&gt;alert(" in body or "&lt;img src=x onerror" in body
    assert found_markup, "the fixture's markup text should be shown, as text"


def test_dataset_counts_search_and_slices(client: Any, app: Any) -> None:
    k = key(app, "kitmus", suite=True)
    opened = client.get(f"/data/{k}")  # the runs are on the test split: the page opens on it
    assert opened.status_code == 302 and opened.location.endswith("?f.split=test")
    body = text(client.get(opened.location))
    assert re.search(r'id="matching">8<', body)
    assert 'href="?f.split=">× all' in body  # every split, without being sent back
    body = text(client.get(f"/data/{k}?f.split="))
    assert re.search(r'id="matching">20<', body)
    assert "background-pretrain" in body and "answer position" in body
    body = text(client.get(f"/data/{k}?q=Loughman"))
    assert re.search(r'id="matching">2<', body)
    body = text(client.get(f"/data/{k}?q=Loughman&f.variant=background-pretrain"))
    assert re.search(r'id="matching">1<', body)
    body = text(client.get(f"/data/{k}?q=%22the+city+tour%22+OR+lakeshore&mode=advanced"))
    assert re.search(r'id="matching">4<', body)
    body = text(client.get(f"/data/{k}?f.split=validation&f.entities=3"))
    assert re.search(r'id="matching">2<', body)
    fragment = client.get(f"/data/{k}?q=Loughman", headers={"HX-Request": "true",
                                                            "HX-Target": "listing"})
    assert "<html" not in text(fragment) and "Filters" in text(fragment)


def test_bad_input_is_a_page_not_a_traceback(client: Any, app: Any) -> None:
    k = key(app, "kitmus", suite=True)
    cases = {
        f"/data/{k}?f.colour=red": 400,
        f"/data/{k}?after=abc": 400,
        f"/data/{k}?sys=nope": 400,
        f"/data/{k}/jump?i=x": 400,
        f"/data/{k}/jump?i=99999": 400,
        "/data/no-such-dataset": 404,
        f"/data/{k}/99999": 404,
        f"/data/{k}/id/kitmus/none:0": 404,
        "/runs/s99999": 404,
        "/no/such/page": 404,
        "/compare?data=no-such": 404,
        f"/tne-demo?text={'a' * 6000}": 400,
        "/boom": 500,
    }
    for url, code in cases.items():
        resp = client.get(url)
        assert resp.status_code == code, url
        body = text(resp)
        assert "Traceback" not in body and "secret detail" not in body, url
        assert "Back to the datasets" in body, url
    for url in (f"/data/{k}?q=%22unbalanced&mode=advanced",
                f"/data/{k}?q=nosuchcolumn:word&mode=advanced&f.split=test"):
        resp = client.get(url)  # the page, under its other filters, with the message
        body = text(resp)
        assert resp.status_code == 400 and "Traceback" not in body, url
        assert 'id="error"' in body and "Filters" in body and 'id="matching"' in body, url
    frag = client.get(f"/data/{k}?q=%22x&mode=advanced", headers={"HX-Request": "true"})
    assert frag.status_code == 400 and "<html" not in text(frag)


def test_jump_and_stable_id_urls(client: Any, app: Any) -> None:
    k = key(app, "kitmus", suite=True)
    resp = client.get(f"/data/{k}/jump?i=12&f.split=test")  # the 12th instance: n=11
    assert resp.status_code == 302
    assert resp.headers["Location"].endswith(f"/data/{k}/11?f.split=test")
    assert client.get(f"/data/{k}/jump?i=0").status_code == 400
    resp = client.get(f"/data/{k}/id/kitmus/background-pretrain/subtask_2_ents/test:1")
    assert resp.status_code == 302 and f"/data/{k}/11" in resp.headers["Location"]
    # the CoNLL view's id (with its view segment) finds the same instance
    resp = client.get(f"/data/{k}/id/kitmus/background-pretrain/subtask_2_ents/full-text/test:1")
    assert resp.status_code == 302 and f"/data/{k}/11" in resp.headers["Location"]


def test_prev_next_follow_the_filtered_list(client: Any, app: Any) -> None:
    k = key(app, "kitmus", suite=True)
    body = text(client.get(f"/data/{k}/10?f.split=test"))
    assert re.search(rf'id="prev" href="/data/{k}/6\?f.split=test"', body)
    assert re.search(rf'id="next" href="/data/{k}/11\?f.split=test"', body)


def test_kitmus_instance_shows_structure_runs_and_chain_of_facts(client: Any, app: Any) -> None:
    k = key(app, "kitmus")
    body = text(client.get(f"/data/{k}/0"))
    assert "Knowledge text" in body and "Task text" in body
    assert "entity-specific knowledge" in body and "background knowledge" in body
    assert body.count('class="ment ent0"') >= 3 and body.count('class="ment ent1"') >= 3
    assert '<span class="pron">' in body and "gold answer" in body
    for label in ("first", "random", "knowledge-match"):
        assert f">{label}</a>" in body
    assert "background-overlap" in body and "entity knowledge:" in body  # chain of facts
    # instance 1 was not in the knowledge-match run
    assert "no prediction for this instance" in text(client.get(f"/data/{k}/1"))


def test_choice_instances_link_their_switched_twin(client: Any, app: Any) -> None:
    kr = key(app, "knowref")
    body = text(client.get(f"/data/{kr}/0"))
    assert "Switched twin" in body and f"/data/{kr}/2" in body
    wg = key(app, "winograd")
    body = text(client.get(f"/data/{wg}/0"))
    assert "WEBPAIRONE-2" in body and f"/data/{wg}/1" in body
    body = text(client.get(f"/data/{wg}/2"))
    assert "Switched twin" not in body


def test_altentities_dialogue_and_entities_side_by_side(client: Any, app: Any) -> None:
    body = text(client.get(f"/data/{key(app, 'altentities')}/0"))
    assert "speaker-a" in body and "speaker-b" in body and "the one about the desert" in body
    assert body.count("Infobox") == 2 and "Description shown to raters" in body
    assert "target" in body and "Background (not shown to raters)" in body
    songs = text(client.get(f"/data/{key(app, 'altentities')}/2"))
    assert "Description shown to raters" not in songs  # raters saw none for songs


def test_cross_encoder_evidence_is_highlighted(client: Any, app: Any, world: Any,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The fragment marks the sentences the selector returned (the selector is replaced by a
    stand-in that picks the sentence naming the desert, so no encoder is loaded)."""
    from refbench.runs.runner import run_model
    from refbench.web import evidence

    def fake_select(inst: Any, k: int, budget: int) -> tuple[str, float]:
        desc = inst.candidates[k].description or ""
        chosen = [s for s in re.split(r"(?<=\.) ", desc) if "desert" in s or "lighthouse" in s]
        return f"{inst.candidates[k].text}. {' '.join(chosen)}", 0.5

    class FakeModel:
        name, batch_size = "cross-encoder", 8
        LM_EVAL_HASHES = False

        def fingerprint(self) -> str:
            return "fake-cross-encoder"

        def config(self) -> dict[str, Any]:
            return {"name": "cross-encoder", "evidence_words": 60}

        def prepare(self, *_: Any) -> None:
            pass

        def predict(self, batch: Any) -> list[Any]:
            from refbench.models.base import ModelOutput

            return [ModelOutput(1, (0.1, 0.9)) for _ in batch]

    data = world["files"]["altentities"]
    run_model("cross-encoder", data, world["root"] / "ce-run", model=FakeModel(),
              progress=False, store=None)
    monkeypatch.setattr(evidence, "select", fake_select)
    app.config["CATALOG"].config.run_dirs.append(world["root"] / "ce-run")
    app.config["CATALOG"]._runs_at = -1.0
    try:
        k = key(app, "altentities")
        sid = system_ids(app, k)["cross-encoder"]
        page = text(client.get(f"/data/{k}/0"))
        assert f"/data/{k}/0/evidence/{sid}" in page
        frag = text(client.get(f"/data/{k}/0/evidence/{sid}"))
        assert '<span class="evidence">Salt Roads is a travel book about caravans crossing ' \
               "the desert to trade salt.</span>" in frag
        assert_escaped(frag)
    finally:
        app.config["CATALOG"].config.run_dirs.pop()
        app.config["CATALOG"]._runs_at = -1.0


def test_tne_document_nps_links_gold_vs_predicted(client: Any, app: Any) -> None:
    k = key(app, "tne")
    body = text(client.get(f"/data/{k}/0"))
    assert body.count('data-np="np') >= 20  # NPs in the text and as chips
    assert 'data-chain="0"' in body  # chains coloured
    assert f'hx-get="/data/{k}/0/np/np4' in body
    assert "Predicted vs gold" in body and "adj-backward" in body
    frag = text(client.get(f"/data/{k}/0/np/np4"))
    assert "<html" not in frag and "the old market" in frag
    assert "of / on" in frag and "explicit" in frag and "the market" in frag  # chain
    assert "correct" in frag
    frag = text(client.get(f"/data/{k}/0/np/np3"))  # The storm -> Port Ellis: implicit
    assert "implicit" in frag and "missing" in frag
    full = text(client.get(f"/data/{k}/0?np=np4"))
    assert 'class="nplinks"' in full
    assert client.get(f"/data/{k}/0/np/np99").status_code == 404


def test_compare_slices_significance_and_disagreements(client: Any, app: Any) -> None:
    from statsmodels.stats.contingency_tables import mcnemar

    k = key(app, "kitmus")
    ids = system_ids(app, k)
    a, b = ids["first"], ids["random"]
    page = client.get(f"/compare?data={k}&sys={a}&sys={b}")
    assert page.status_code == 200
    body = text(page)
    assert "Accuracy by slice" in body and "background-pretrain" in body
    # first is right on all 3 instances: 1.000 with its Wilson interval, bold as the best
    assert "<strong>1.000</strong><span class=\"cell-ci\">[0.439, 1.000] n=3</span>" in body
    assert f"/compare/significance?data={k}&amp;sys={a}&amp;sys={b}" in body
    assert_escaped(body)
    sig = text(client.get(f"/compare/significance?data={k}&sys={a}&sys={b}"))
    cat = app.config["CATALOG"]
    with cat.index.connect(cat.datasets[k]) as db:
        x = [r[0] for r in db.execute("SELECT correct FROM preds WHERE sys = ? ORDER BY n", (a,))]
        y = [r[0] for r in db.execute("SELECT correct FROM preds WHERE sys = ? ORDER BY n", (b,))]
    table = [[sum(1 for i, j in zip(x, y, strict=True) if (i, j) == (p, q)) for q in (1, 0)]
             for p in (1, 0)]
    expected = mcnemar(table, exact=True).pvalue
    assert f"{expected:.4f}" in sig
    rows = text(client.get(f"/compare?data={k}&sys={a}&sys={b}&disagree=1"))
    assert re.search(r'id="matching">(\d+)<', rows)
    n_disagree = int(re.search(r'id="matching">(\d+)<', rows).group(1))  # type: ignore[union-attr]
    assert n_disagree == sum(1 for i, j in zip(x, y, strict=True) if i != j)
    wrong = text(client.get(f"/compare?data={k}&sys={a}&sys={b}&c.{b}=incorrect"))
    assert int(re.search(r'id="matching">(\d+)<', wrong).group(1)) == y.count(0)  # type: ignore[union-attr]
    assert client.get(f"/compare?data={k}&sys={a}&sys={a}").status_code == 400


def test_compare_tne_and_picker(client: Any, app: Any) -> None:
    k = key(app, "tne")
    ids = system_ids(app, k)
    body = text(client.get(f"/compare?data={k}&sys={ids['adj-backward']}&sys={ids['surface']}"))
    assert "labeled F1" in body and "IPrep-Acc" in body  # the task's leaderboard columns
    assert "kitmus-xss.jsonl" in text(client.get("/compare"))


def test_leaderboard_cells_link_to_runs(client: Any, app: Any) -> None:
    body = text(client.get("/leaderboard"))
    runs = set(re.findall(r'href="/runs/(\w+)"', body))
    assert len(runs) >= 10
    assert "pronoun accuracy per subtask" in body and "labeled F1" in body
    assert "[0.000, 1.000]" in body  # the runs' own bootstrap interval of 2/3 on 3 instances
    for rid in sorted(runs)[:3]:
        assert client.get(f"/runs/{rid}").status_code == 200


def test_accuracy_without_a_stored_interval_gets_a_wilson_interval() -> None:
    from pathlib import Path

    from refbench.web.runs import RunInfo
    from refbench.web.views_board import cell

    run = RunInfo(rid="s1", model="m", fingerprint="f", task="knowref", data=None,
                  predictions=Path("p"), created="",
                  metrics={"accuracy": 2 / 3, "n_with_gold": 3})
    c = cell(run, "accuracy")
    assert c is not None and c["method"] == "wilson"  # the name the model card shows too
    assert [round(x, 3) for x in c["ci"]] == [0.208, 0.939]
    stored = RunInfo(rid="s2", model="m", fingerprint="f", task="knowref", data=None,
                     predictions=Path("p"), created="",
                     metrics={"accuracy": 0.5, "ci95": {"accuracy": [0.4, 0.6]}})
    assert cell(stored, "accuracy") == {"value": 0.5, "ci": (0.4, 0.6), "method": "bootstrap",
                                        "rid": "s2"}


def test_run_pages(client: Any, app: Any) -> None:
    run = next(r for r in app.config["CATALOG"].runs() if r.model == "first"
               and r.task == "knowref")
    body = text(client.get(f"/runs/{run.rid}"))
    assert "accuracy" in body and "Provenance" in body and "by pronoun" in body
    tne = next(r for r in app.config["CATALOG"].runs() if r.task == "tne")
    assert "labeled F1" in text(client.get(f"/runs/{tne.rid}"))


def test_tne_demo(client: Any) -> None:
    assert "No TNE model" not in text(client.get("/tne-demo"))
    body = text(client.get("/tne-demo?text=The+Roof+of+the+House+in+Town+fell.&np=np0"))
    assert "Enriched text" in body and 'class="nplinks"' in body and "House" in body
    xss = text(client.get("/tne-demo?text=%3Cscript%3Ealert(1)%3C/script%3E+Rome"))
    assert_escaped(xss)


def test_a_switched_tsv_copy_is_a_twin_and_a_reused_id_is_not(tmp_path: Any) -> None:
    """KnowRef TSV files number instances from 0: only a copy with the same candidates and a
    different text (``refbench knowref switch``) is a twin."""
    from pathlib import Path

    from refbench.tasks.knowref.switch import switch_file
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig
    from refbench.web.serve import prepare

    orig = Path(__file__).parents[1] / "fixtures" / "knowref" / "train.tsv"
    switched = tmp_path / "switched.tsv"
    switch_file(orig, switched)
    other = tmp_path / "other.tsv"
    other.write_text(orig.read_text().replace("Ingrid", "Solveig"))
    config = ServeConfig(data=[orig, switched, other], store=tmp_path / "s.sqlite",
                         index_dir=tmp_path / "index")
    app = create_app(config)
    prepare(app.config["CATALOG"], progress=False)
    keys = {d.path.name: d.key for d in app.config["CATALOG"].datasets.values()}
    body = text(app.test_client().get(f"/data/{keys['train.tsv']}/0"))
    assert "Switched twin" in body and f"/data/{keys['switched.tsv']}/0" in body
    assert keys["other.tsv"] not in body
