"""The analysis pages of issue 22 through Flask's test client, on the fixture world (see
conftest.py): the bootstrap p's floor, Holm over pairs, GAP "neither", a run's own subtask and
the position in a selection, the suite leaderboard's blocks, grouped runs on the home page, the
KITMUS matrix, TNE's per-document tests and the TNE demo without a model."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.test_routes import assert_escaped, key, system_ids, text


@pytest.fixture(scope="module")
def floor_client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """An app over one subtask of the tiny suite where knowledge-match is right on every
    instance and ``first`` on none (the background knowledge is in the text; the balanced
    generator puts no answer first there), so one system beats the other everywhere."""
    from refbench.runs.runner import run_model
    from refbench.runs.store import Store
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig
    from tests.web.conftest import SUITE

    root = tmp_path_factory.mktemp("floor")
    data = root / "test.jsonl"
    data.write_bytes((SUITE / "background-inference-charfict-wordfict" / "subtask_3_ents"
                      / "test.jsonl").read_bytes())
    store = Store(root / "results.sqlite")
    for model in ("knowledge-match", "first"):
        run_model(model, data, root / model, store=store, progress=False)
    store.close()
    config = ServeConfig(data=[data], store=root / "results.sqlite", index_dir=root / "index")
    return create_app(config)


def test_bootstrap_p_at_its_resolution_floor(floor_client: Any) -> None:
    """knowledge-match beats first on every instance: the bootstrap p is at its floor,
    2 / (B + 1), and reads "< 0.002" with 1,000 resamples (not "0.0020")."""
    k = key(floor_client, "kitmus")
    ids = system_ids(floor_client, k)
    client = floor_client.test_client()
    sig = text(client.get(f"/compare/significance?data={k}&sys={ids['knowledge-match']}"
                          f"&sys={ids['first']}"))
    assert '<td class="num boot-p">&lt; 0.002</td>' in sig and "0.0020" not in sig
    sig = text(client.get(f"/compare/significance?data={k}&sys={ids['knowledge-match']}"
                          f"&sys={ids['first']}&resamples=500"))
    assert '<td class="num boot-p">&lt; 0.004</td>' in sig


def test_several_systems_get_per_pair_p_values_and_holm(client: Any, app: Any) -> None:
    """Three systems: the page says the p-values are per pair and shows Holm's adjustment
    (statsmodels multipletests over the pairs tested) beside each raw p; two systems: no Holm."""
    from statsmodels.stats.multitest import multipletests

    k = key(app, "kitmus")
    ids = system_ids(app, k)
    three = "".join(f"&sys={ids[name]}" for name in ("first", "random", "knowledge-match"))
    sig = text(client.get(f"/compare/significance?data={k}{three}"))
    assert "Each p-value is for one pair of systems (3 pairs)" in sig
    raw = [float(p) for p in re.findall(r'class="num mcnemar">([0-9.]+)<', sig)]
    shown = re.findall(r'class="num holm-mcnemar">([0-9.]+)<', sig)
    assert len(raw) == len(shown) >= 2
    expected = multipletests(raw, method="holm")[1]
    assert shown == [f"{p:.4f}" for p in expected]
    two = text(client.get(f"/compare/significance?data={k}&sys={ids['first']}"
                          f"&sys={ids['random']}"))
    assert "holm-mcnemar" not in two and "per-pair" not in two


GAP_HEADER = "ID\tText\tPronoun\tPronoun-offset\tA\tA-offset\tA-coref\tB\tB-offset\tB-coref\tURL\n"


def test_gap_neither_is_shown_as_the_gold(tmp_path: Path) -> None:
    """GAP's "neither" (A-coref and B-coref both FALSE) is a real label: the instance page and
    the list show it as the gold, not "no gold answer"."""
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    gap = tmp_path / "gap-neither.tsv"
    gap.write_text(GAP_HEADER
                   + "n-1\tMira Holt phoned Dana Reyes because she needed the keys.\tshe\t36\t"
                   "Mira Holt\t0\tFALSE\tDana Reyes\t17\tFALSE\thttp://example.org/n-1\n"
                   + "n-2\tPaul Ames met Theo Grant and his train was late.\this\t29\t"
                   "Paul Ames\t0\tTRUE\tTheo Grant\t14\tFALSE\thttp://example.org/n-2\n",
                   encoding="utf-8")
    app = create_app(ServeConfig(data=[gap], store=tmp_path / "r.sqlite",
                                 index_dir=tmp_path / "index"))
    client = app.test_client()
    k = key(app, "gap")
    page = text(client.get(f"/data/{k}/0"))
    assert 'Gold: <strong class="goldmark">neither</strong>' in page
    assert "has no gold answer" not in page
    assert "goldmark" in text(client.get(f"/data/{k}/1"))
    listing = text(client.get(f"/data/{k}"))
    assert "<td>neither</td>" in listing or ">neither<" in listing


def test_gap_neither_on_the_real_files() -> None:
    """Every real GAP file: the records labelled "neither" are exactly the rows whose A-coref
    and B-coref are both FALSE (GAP development 201, test 227, validation 62)."""
    import csv

    from refbench.tasks.lookup import get_task
    from tests.conftest import SHARED

    folder = SHARED / "data" / "gap"
    files = sorted(folder.glob("*.tsv"))
    if not files:
        pytest.skip("../shared/data/gap is absent")
    for f in files:
        with f.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
        neither = {r["ID"] for r in rows if r["A-coref"] == "FALSE" and r["B-coref"] == "FALSE"}
        gap = get_task("gap")
        assert gap.web is not None
        labelled = {r.iid for r in gap.web.records(gap, f, "choice")
                    if getattr(r, "gold_label", "") == "neither"}
        assert labelled == neither and len(neither) > 0, f.name


def test_run_page_browses_its_own_subtask(client: Any, app: Any) -> None:
    """A run on one subtask of the KITMUS suite browses that subtask (the task's run_facets:
    variant, entities, split), and an instance opened from the filtered list says where it
    stands within the selection, not within the dataset."""
    import html

    cat = app.config["CATALOG"]
    k = key(app, "kitmus", suite=True)
    ds = cat.datasets[k]
    run = next(r for s in cat.systems(ds) for r in s.runs if s.label == "first")
    page = text(client.get(f"/runs/{run.rid}"))
    link = html.unescape(re.search(r'id="browse-run" href="([^"]+)"', page).group(1))  # type: ignore[union-attr]
    assert "f.variant=background-pretrain" in link and "f.entities=2" in link
    assert "f.split=test" in link
    listing = text(client.get(link))
    with cat.index.connect(ds) as db:
        total = db.execute("SELECT count(*) FROM items").fetchone()[0]
    n_file = sum(1 for line in (run.data.read_text(encoding="utf-8").splitlines()) if line.strip())
    matching = int(re.search(r'id="matching">([\d,]+)<', listing).group(1))  # type: ignore[union-attr]
    assert matching == n_file < total
    first = int(re.search(r'href="/data/[^/"]+/(\d+)\?', listing).group(1))  # type: ignore[union-attr]
    inst = text(client.get(f"/data/{k}/{first}" + link[link.index("?"):]))
    assert f"<strong>1</strong> of {n_file} selected" in inst
    assert f"(instance {first + 1} of {total})" in inst  # n counts from 0, the page from 1
    plain = text(client.get(f"/data/{k}/{first}"))
    assert f"instance {first + 1} of {total}</span>" in plain


def test_suite_leaderboard_columns_are_cut_into_blocks(client: Any) -> None:
    """The suite leaderboard draws its variant groups in blocks of at most 9 columns, never
    splitting a variant (8 variants x 3: blocks of 3, 3 and 2 variants)."""
    from refbench.web.views_board import column_blocks

    blocks = column_blocks([(f"v{k}", 3) for k in range(8)])
    assert [(b["start"], b["end"]) for b in blocks] == [(0, 9), (9, 18), (18, 24)]
    assert [len(b["variants"]) for b in blocks] == [3, 3, 2]
    assert column_blocks([("wide", 12), ("v", 3)])[0]["end"] == 12
    board = text(client.get("/leaderboard"))
    assert 'class="scroll suite-block"' in board


def test_home_groups_runs_by_dataset_and_system_with_a_filter(client: Any, app: Any) -> None:
    """Runs are grouped by dataset, then system (the two suite runs of 'first' and 'last' sit
    under the suite), and ?runs= keeps the runs holding every word."""
    cat = app.config["CATALOG"]
    runs = cat.runs()
    body = text(client.get("/"))
    assert f"<strong>{len(runs)}</strong> of {len(runs)} runs" in body
    groups = re.findall(r'<div class="run-group">', body)
    assert len(groups) == len({cat.dataset_of(r).key for r in runs if cat.dataset_of(r)}) \
        + len({r.task for r in runs if cat.dataset_of(r) is None})
    assert len(re.findall(r'<tr class="sys-row">', body)) <= len(runs)
    suite = body[body.index('>suite</a> <span class="badge">suite</span>'):]
    suite = suite[:suite.index("</table>")]
    assert ">first</a>" in suite and ">last</a>" in suite and "random" not in suite
    narrow = text(client.get("/?runs=suite+first"))
    assert "<strong>1</strong> of" in narrow and ">last</a>" not in narrow
    assert text(client.get("/?runs=kitmus")).count('<div class="run-group">') == 2
    none = text(client.get("/?runs=nothing-like-this"))
    assert "No run matches." in none
    assert_escaped(text(client.get("/?runs=%3Cscript%3Ealert(1)")))


def test_kitmus_compare_matrix_of_variant_by_entities(client: Any, app: Any) -> None:
    """KITMUS compare: variant x entities, both systems' accuracy and McNemar's exact p per
    cell (checked against statsmodels on the cell's own instances), each linking to the cell's
    disagreements; a task without a matrix (GAP) has none."""
    from statsmodels.stats.contingency_tables import mcnemar

    k = key(app, "kitmus")
    ids = system_ids(app, k)
    a, b = ids["first"], ids["random"]
    body = text(client.get(f"/compare?data={k}&sys={a}&sys={b}"))
    assert 'id="matrix"' in body and "Variant × entities" in body
    cat = app.config["CATALOG"]
    with cat.index.connect(cat.datasets[k]) as db:
        rows = db.execute("SELECT i.f_variant, i.f_entities, x.correct, y.correct FROM items i "
                          "JOIN preds x ON x.n = i.n AND x.sys = ? JOIN preds y ON y.n = i.n "
                          "AND y.sys = ? WHERE x.correct IS NOT NULL AND y.correct IS NOT NULL",
                          (a, b)).fetchall()
    cells: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for v, e, x, y in rows:
        cells.setdefault((v, e), []).append((x, y))
    assert len(re.findall(r'<td class="num mcell"><a ', body)) == len(cells)
    for (v, e), pairs in cells.items():
        t = [[sum(1 for p in pairs if p == (i, j)) for j in (1, 0)] for i in (1, 0)]
        p = mcnemar(t, exact=True).pvalue
        acc_a = sum(x for x, _ in pairs) / len(pairs)
        acc_b = sum(y for _, y in pairs) / len(pairs)
        assert f"{acc_a:.3f} / {acc_b:.3f}</a><span class=\"cell-ci\">p = {p:.4f}" in body
        assert f"f.variant={v}&amp;f.entities={e}&amp;disagree=1" in body
    gap = key(app, "gap")
    g = system_ids(app, gap)
    assert 'id="matrix"' not in text(client.get(f"/compare?data={gap}&sys={g['first']}"
                                                f"&sys={g['random']}"))


def test_tne_compare_per_document_f1_paired_tests_and_order(client: Any, app: Any,
                                                            world: dict[str, Any]) -> None:
    """TNE compare: each system's labeled F1 per document (checked against the TNE evaluator
    run on that one document), a paired bootstrap and a permutation test on the per-document
    differences, and the documents ordered by |difference|."""
    import numpy as np
    from scipy.stats import permutation_test

    from refbench.tasks.tne.metrics import evaluate_tne
    from refbench.tasks.tne.predictions import read_predictions
    from refbench.tasks.tne.read import read_tne

    k = key(app, "tne")
    ids = system_ids(app, k)
    a, b = ids["adj-backward"], ids["surface"]
    body = text(client.get(f"/compare?data={k}&sys={a}&sys={b}"))
    assert 'id="doc-significance"' in body and 'id="documents"' in body
    docs = list(read_tne(world["files"]["tne"]))
    gold = {d.id: d for d in docs}
    f1 = {}
    for name in ("adj-backward", "surface"):
        preds = read_predictions(world["tne_runs"][name] / "predictions.jsonl", gold)
        f1[name] = {d.id: evaluate_tne([d], {d.id: preds[d.id]})["labeled_f1"] for d in docs
                    if d.relations}
    order = sorted(f1["adj-backward"], key=lambda d: -abs(f1["adj-backward"][d]
                                                          - f1["surface"][d]))
    shown = re.findall(r'<tr class="doc-row">.*?<td class="iid"><a [^>]*>([^<]+)</a>', body,
                       flags=re.S)
    assert set(shown) == set(f1["adj-backward"])
    diffs = [abs(f1["adj-backward"][d] - f1["surface"][d]) for d in shown]
    assert diffs == sorted(diffs, reverse=True) and shown[0] in order[:sum(
        1 for d in order if abs(f1["adj-backward"][d] - f1["surface"][d]) == diffs[0])]
    x = np.array([f1["adj-backward"][d] for d in sorted(f1["adj-backward"])])
    y = np.array([f1["surface"][d] for d in sorted(f1["surface"])])
    assert f"{x.mean():.3f}</td><td class=\"num\">{y.mean():.3f}" in body
    if not np.all(x == y):
        perm = permutation_test((x, y), lambda u, v, axis=-1: np.mean(u, axis=axis)
                                - np.mean(v, axis=axis), permutation_type="samples",
                                vectorized=True, n_resamples=1000,
                                rng=np.random.default_rng(0))
        assert f'<td class="num perm-p">{perm.pvalue:.4f}</td>' in body


def test_tne_demo_without_a_model_uses_the_chunker_and_a_baseline(tmp_path: Path) -> None:
    """No --tne-model: the demo says so, chunks the text into base NPs (spaCy) and links them
    by a deterministic baseline (surface by default: "the roof [of] the old house")."""
    pytest.importorskip("spacy")
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    app = create_app(ServeConfig(data=[], store=tmp_path / "r.sqlite",
                                 index_dir=tmp_path / "index"))
    client = app.test_client()
    assert 'id="no-model"' in text(client.get("/tne-demo"))
    sentence = "The roof of the old house in the village collapsed after the storm."
    body = text(client.get("/tne-demo", query_string={"text": sentence, "np": "np0"}))
    assert 'id="no-model"' in body and "Enriched text" in body
    assert "4 NPs, 3 links from the surface baseline" in body
    assert 'class="nplinks"' in body and "the old house" in body
    combined = text(client.get("/tne-demo", query_string={"text": sentence,
                                                          "baseline": "combined"}))
    assert "links from the combined baseline" in combined
    assert client.get("/tne-demo", query_string={"text": sentence,
                                                 "baseline": "oracle"}).status_code == 400
    assert_escaped(text(client.get("/tne-demo", query_string={
        "text": "<script>alert(1)</script> The roof of Rome"})))


def test_home_folds_a_systems_suite_runs_into_one_row(tmp_path: Path,
                                                      world: dict[str, Any]) -> None:
    """Two runs of one model on two subtasks of a suite: one system row under the suite,
    its runs listed by their path inside the suite."""
    from refbench.runs.runner import run_model
    from refbench.runs.store import Store
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    suite = world["suite"]
    store = Store(tmp_path / "results.sqlite")
    files = [suite / "background-pretrain" / f"subtask_{n}_ents" / "test.jsonl" for n in (2, 3)]
    for k, f in enumerate(files):
        run_model("first", f, tmp_path / f"run{k}", store=store, progress=False)
    store.close()
    app = create_app(ServeConfig(data=[suite], store=tmp_path / "results.sqlite",
                                 index_dir=tmp_path / "index"))
    body = text(app.test_client().get("/"))
    assert body.count('<tr class="sys-row">') == 1
    assert "<details><summary>first</summary>" in body
    for n in (2, 3):
        assert f"background-pretrain/subtask_{n}_ents/test.jsonl" in body


def test_run_facets_select_every_record_of_the_released_suite_files() -> None:
    """On the released KITMUS suite (every variant, 2 to 4 entities, the test split's
    jsonlines): the facets run_facets gives a file are those of every record read from it, so
    the run page's browse link selects exactly the run's file."""
    from refbench.tasks.lookup import get_task
    from tests.conftest import OFFICIAL

    root = OFFICIAL / "released"
    files = sorted(root.glob("*/subtask_*_ents/full-text/test.jsonlines.gz"))
    if not files:
        pytest.skip("../shared/data/kitmus-official is absent")
    task = get_task("kitmus")
    assert task.folder is not None and task.web is not None
    for f in files:
        want = task.folder.run_facets(f, root)
        assert set(want) == {"variant", "entities", "split"}, f
        records = list(task.web.records(task, f, task.web.dataset_kind(f)))
        assert records and all(r.facets.get(k) == v for r in records  # type: ignore[union-attr]
                               for k, v in want.items()), f
