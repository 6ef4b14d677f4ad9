"""Issue 50, point 7: ``refbench serve`` on bad input and when it is stopped.

A bad ``--index-dir`` or a missing ``--runs`` folder is one line and exit 2; a run whose
predictions are garbage is listed as unreadable with the reason (no page answers 500); an index
with rows deleted is built again; a run on a copy of a suite's file browses that file's
instances; a system's C2F predictions are not a dataset. Ctrl-C and SIGKILL while indexing:
:mod:`tests.web.test_serve_signals`.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED
from tests.web.conftest import FIX, SUITE


def test_index_dir_naming_a_file_is_one_line(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    for index_dir, why in (("afile", "is a file, expected a folder"),
                           ("afile/sub", "cannot make the folder")):
        out = cli("serve", str(FIX / "gap-xss.tsv"), "--index-dir", str(tmp_path / index_dir),
                  "--store", str(tmp_path / "s.sqlite"), "--port", "0")
        assert out.returncode == 2, out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error E100: --index-dir ")
        assert why in lines[0] and "Traceback" not in out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # nothing made


def test_a_missing_runs_folder_is_refused_by_name(cli: Any, tmp_path: Path) -> None:
    """``serve kitmus-suite --runs runs/first runs/emb`` with no ``runs/emb``: refused before
    anything is served, naming it (it used to start without a word)."""
    (tmp_path / "runs" / "first").mkdir(parents=True)
    out = cli("serve", str(FIX / "gap-xss.tsv"), "--runs", "runs/first", "runs/emb",
              "--store", str(tmp_path / "s.sqlite"), "--port", "0", cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip() == "error E100: --runs: no such file or folder: runs/emb"


def _two_runs(root: Path) -> Path:
    """A Winograd file with a run of ``first`` (s1) and of ``random`` (s2) in a store."""
    from refbench.runs.runner import run_model
    from refbench.runs.store import Store

    data = root / "wsc.jsonl"
    shutil.copy(FIX / "winograd-xss.jsonl", data)
    store = Store(root / "s.sqlite")
    for model in ("first", "random"):
        run_model(model, data, root / "runs" / model, store=store, progress=False)
    store.close()
    return data


@pytest.mark.parametrize("garbage", ["garbage\n{not json\n", '{"id": "w1", "answer": 0}\n[1, 2]\n'])
def test_a_run_with_garbage_predictions_is_listed_unreadable(tmp_path: Path,
                                                             garbage: str) -> None:
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig
    from refbench.web.serve import prepare

    data = _two_runs(tmp_path)
    (tmp_path / "runs" / "first" / "predictions.jsonl").write_text(garbage)
    app = create_app(ServeConfig(data=[data], store=tmp_path / "s.sqlite",
                                 index_dir=tmp_path / "index"))
    cat = app.config["CATALOG"]
    prepare(cat, progress=False)
    assert [r.model for r in cat.runs()] == ["random"]
    (path, why), = cat.run_problems
    assert path.endswith("first/predictions.jsonl")
    assert why.startswith("run s1 (first) is not shown: its predictions are unreadable (line ")
    client = app.test_client()
    key = next(iter(cat.datasets))
    (system,) = cat.systems(cat.datasets[key])
    home = client.get("/").get_data(as_text=True)
    assert "run s1 (first) is not shown: its predictions are unreadable" in home
    pages = ["/", "/leaderboard", f"/data/{key}", f"/data/{key}/0", f"/data/{key}/1",
             f"/compare?data={key}", f"/data/{key}?sys={system.sid}",
             f"/compare?data={key}&sys={system.sid}", "/runs/s2", "/runs/s2.json",
             *(f"/charts/runs/s2/{k}.svg" for k in ("slices", "figure", "scores"))]
    for url in pages:
        assert client.get(url).status_code in (200, 204), url
    for url in ("/runs/s1", "/runs/s1.json", "/charts/runs/s1/slices.svg"):
        assert client.get(url).status_code == 404, url
    body = client.get("/runs/s1").get_data(as_text=True)
    assert "its predictions are unreadable (line" in body


def _reseal(root: Path, run_id: int) -> None:
    """Seal the store's record of run ``run_id`` (``first``) again over its predictions now."""
    from refbench.core.seal import seal

    with sqlite3.connect(root / "s.sqlite") as db:
        (text,) = db.execute("SELECT metrics FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        metrics = seal(json.loads(text), root / "runs" / "first" / "predictions.jsonl")
        db.execute("UPDATE runs SET metrics = ? WHERE run_id = ?", (json.dumps(metrics), run_id))
    db.close()


@pytest.mark.parametrize("fields", [
    {"answer": 99, "scores": "abc", "explanation": 5},
    {"answer": 1, "scores": [[1]], "extra": [1, 2], "explanation": {"a": 1}},
    {"answer": True, "scores": [1, "a", None], "extra": {"strategy": [1]}},
    {"answer": 1, "scores": [1e308, -1e308]}])
def test_predictions_of_other_shapes_show_less_never_a_500(tmp_path: Path,
                                                           fields: dict[str, Any]) -> None:
    """JSON objects, but not in the shapes a page draws: the run is shown, and what cannot
    be drawn is left out (the instance page and the scores chart were 500s)."""
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig
    from refbench.web.serve import prepare

    data = _two_runs(tmp_path)
    first = json.loads((tmp_path / "runs" / "random" / "predictions.jsonl").read_text()
                       .splitlines()[0])
    (tmp_path / "runs" / "first" / "predictions.jsonl").write_text(
        json.dumps({"id": first["id"], **fields}) + "\n")
    _reseal(tmp_path, 1)  # as if the run had written them: else its record is refused
    app = create_app(ServeConfig(data=[data], store=tmp_path / "s.sqlite",
                                 index_dir=tmp_path / "index"))
    cat = app.config["CATALOG"]
    prepare(cat, progress=False)
    key = next(iter(cat.datasets))
    sids = "".join(f"&sys={s.sid}" for s in cat.systems(cat.datasets[key]))
    client = app.test_client()
    for url in (f"/data/{key}/0?{sids[1:]}", f"/data/{key}?{sids[1:]}", "/runs/s1",
                f"/compare?data={key}{sids}", "/charts/runs/s1/scores.svg",
                f"/charts/compare/slices.svg?data={key}{sids}"):
        assert client.get(url).status_code in (200, 204), url


def test_an_index_with_rows_deleted_is_built_again(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from refbench.web.datasets import open_dataset
    from refbench.web.index import IndexFolder

    data = tmp_path / "wsc.jsonl"
    shutil.copy(FIX / "winograd-xss.jsonl", data)
    ds = open_dataset(data)
    path = IndexFolder(tmp_path / "index").ensure(ds)
    with sqlite3.connect(path) as db:
        n = db.execute("SELECT count(*) FROM items").fetchone()[0]
        assert n >= 3
        db.execute("DELETE FROM items WHERE n >= 1")
        db.execute("DELETE FROM payloads WHERE n >= 1")
    db.close()
    again = IndexFolder(tmp_path / "index")  # the next start
    assert not again.is_current(ds)
    assert f"index of {ds.label} is incomplete (items holds 1 rows, {n} when it was built)" \
        in capsys.readouterr().err
    again.ensure(ds)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM items").fetchone()[0] == n
        assert db.execute("SELECT count(*) FROM payloads").fetchone()[0] == n
    db.close()
    assert IndexFolder(tmp_path / "index").is_current(ds)


def test_a_run_on_a_copy_of_a_subtask_browses_that_subtask(tmp_path: Path) -> None:
    """The run read the same content as the suite's subtask file (a copy elsewhere): it is a
    run on that subtask, and its "browse with this system's answers" link selects it, not
    the whole suite with "no prediction" on every other instance."""
    from refbench.runs.runner import run_model
    from refbench.runs.store import Store
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite, ignore=shutil.ignore_patterns("*-text*", "DATASHEET.md",
                                                                "stats.json"))
    copy = tmp_path / "elsewhere" / "mine.jsonl"
    copy.parent.mkdir()
    shutil.copy(suite / "background-pretrain" / "subtask_3_ents" / "test.jsonl", copy)
    store = Store(tmp_path / "s.sqlite")
    run_model("first", copy, tmp_path / "runs" / "first", store=store, progress=False)
    store.close()
    app = create_app(ServeConfig(data=[suite], store=tmp_path / "s.sqlite",
                                 index_dir=tmp_path / "index"))
    from refbench.web.run_groups import group_runs

    cat = app.config["CATALOG"]
    (group,) = group_runs(cat, cat.runs())
    assert group.ds is not None and group.ds.is_folder  # the home page lists it as the file
    assert group.name(cat.runs()[0]) == "background-pretrain/subtask_3_ents/test.jsonl"
    client = app.test_client()
    page = client.get("/runs/s1").get_data(as_text=True)
    link = re.search(r'href="(/data/[^"]*sys=[^"]*)"', page)
    assert link is not None, page
    url = link.group(1).replace("&amp;", "&")
    assert "f.variant=background-pretrain" in url and "f.entities=3" in url
    assert "f.split=test" in url


def _e2e_prediction(gold: Path, out: Path) -> None:
    """``gold``'s documents with the clusters a system might give: the pronoun (the last
    mention of the last cluster) moved to the first cluster."""
    lines = []
    for line in gold.read_text().splitlines():
        doc = json.loads(line)
        clusters = doc["clusters"]
        pronoun = clusters[-1].pop()
        clusters[0].append(pronoun)
        doc["clusters"] = [c for c in clusters if c]
        doc["constituents"], doc["ner"] = [], []
        lines.append(json.dumps(doc))
    out.write_text("\n".join(lines) + "\n")


def test_predictions_of_a_served_file_are_not_a_dataset(tmp_path: Path) -> None:
    from refbench.web.datasets import discover

    gold = SUITE / "background-pretrain" / "subtask_2_ents" / "full-text" / "test.jsonlines"
    (tmp_path / "gold").mkdir()
    (tmp_path / "predictions").mkdir()
    shutil.copy(gold, tmp_path / "gold" / "test.jsonlines")
    shutil.copy(gold, tmp_path / "predictions" / "a-copy.test.jsonlines")  # data: a copy
    _e2e_prediction(gold, tmp_path / "predictions" / "c2f-run1.test.jsonlines")
    found = discover([tmp_path])
    assert sorted(d.path.name for d in found.datasets) == ["a-copy.test.jsonlines",
                                                           "test.jsonlines"]
    (why,) = [w for p, w in found.skipped if "c2f" in p]
    assert why.startswith("not a dataset: a system's predictions for ")
    assert "(its documents, with other clusters)" in why


@pytest.mark.skipif(not (SHARED / "data" / "kitmus-official").is_dir(),
                    reason="needs ../shared/data")
def test_the_published_c2f_predictions_are_not_a_dataset() -> None:
    from refbench.web.datasets import discover

    folder = SHARED / "data" / "kitmus-official"
    found = discover([folder])
    assert [d.label for d in found.datasets] == ["released"]
    c2f = folder / "predictions" / "c2f-run1.background-train.subtask_2_ents.test.jsonlines.gz"
    why = dict(found.skipped)[str(c2f)]
    assert why.startswith("not a dataset: a system's predictions for ")
    assert "background-train/subtask_2_ents/full-text/test.jsonlines.gz" in why


@pytest.mark.skipif(not (SHARED / "data" / "kitmus-official").is_dir(),
                    reason="needs ../shared/data")
def test_c2f_predictions_served_alone_are_told_by_the_release_in_the_data_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The C2F file copied away from the release and served alone: the release in refbench's
    data folder (``refbench data get``) says whose answers they are (it was a 1,990-instance
    dataset)."""
    from refbench.web.datasets import discover

    name = "c2f-run1.background-train.subtask_2_ents.test.jsonlines.gz"
    shutil.copy(SHARED / "data" / "kitmus-official" / "predictions" / name, tmp_path / name)
    monkeypatch.setenv("REFBENCH_DATA_DIR", str(SHARED / "data"))
    found = discover([tmp_path / name])
    assert found.datasets == []
    (why,) = [w for _, w in found.skipped]
    assert why.startswith("not a dataset: a system's predictions for ")
    monkeypatch.setenv("REFBENCH_DATA_DIR", str(tmp_path / "no-data"))  # no release: data
    assert [d.path.name for d in discover([tmp_path / name]).datasets] == [name]
