"""``serve`` answers at once: indexes built in the background (a page whose dataset is not
indexed yet answers "indexing, N%"), kept in the cache folder by content, reused by a second
start, and built again only for the data that changed."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from refbench.web.app import create_app
from refbench.web.catalog import Catalog, ServeConfig
from refbench.web.warm import Warmer
from tests.web.conftest import FILES


def _app(config: ServeConfig) -> tuple[Any, Catalog]:
    catalog = Catalog(config)
    return create_app(config, catalog=catalog), catalog


def _data(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "data"
    folder.mkdir()
    return [Path(shutil.copy(FILES[t], folder)) for t in ("gap", "winograd")]


def test_pages_answer_while_indexing_and_the_asked_dataset_goes_first(tmp_path: Path) -> None:
    data = _data(tmp_path)
    config = ServeConfig(data=data, store=tmp_path / "s.sqlite", index_dir=tmp_path / "index")
    app, catalog = _app(config)
    warmer = Warmer(catalog)
    catalog.index.background = warmer  # as while its thread runs, before it reaches a dataset
    client = app.test_client()
    home = client.get("/")
    assert home.status_code == 200 and "queued for indexing" in home.get_data(as_text=True)
    last = list(catalog.datasets)[-1]
    page = client.get(f"/data/{last}")
    assert page.status_code == 503 and page.headers["Retry-After"] == "2"
    assert "indexing, 0%" in page.get_data(as_text=True)
    assert not list((tmp_path / "index").glob("*.sqlite"))  # no build in the request
    assert warmer._order[0] == last  # asked for: indexed first
    catalog.index.background = None
    warmer.start()
    assert warmer.finished.wait(120)
    assert catalog.index.background is None
    assert client.get(f"/data/{last}").status_code == 200
    assert "queued" not in client.get("/").get_data(as_text=True)


def test_second_start_reuses_the_index_and_rebuilds_only_what_changed(tmp_path: Path) -> None:
    data = _data(tmp_path)
    config = ServeConfig(data=data, store=tmp_path / "s.sqlite", index_dir=tmp_path / "index")
    _, catalog = _app(config)
    assert Warmer(catalog).start().finished.wait(120)
    built = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "index").glob("*.sqlite")}
    assert len(built) == 2
    again = Catalog(config)
    assert all(again.index.is_current(ds) for ds in again.datasets.values())
    # the same data somewhere else: the same index (keyed by content, not place)
    elsewhere = tmp_path / "copy"
    elsewhere.mkdir()
    copy = Path(shutil.copy(data[0], elsewhere))
    moved = Catalog(ServeConfig(data=[copy], store=tmp_path / "s.sqlite",
                                index_dir=tmp_path / "index"))
    assert all(moved.index.is_current(ds) for ds in moved.datasets.values())
    # one file changes: only its dataset is indexed again, its former index removed
    with data[1].open("a", encoding="utf-8") as fh:
        fh.write('{"qID": "w-extra", "sentence": "Ana thanked Bo because _ helped.", '
                 '"option1": "Ana", "option2": "Bo", "answer": "2"}\n')
    changed = Catalog(config)
    assert Warmer(changed).start().finished.wait(120)
    now = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "index").glob("*.sqlite")}
    kept = set(now) & set(built)
    assert len(now) == 2 and len(kept) == 1
    assert all(now[name] == built[name] for name in kept)


def test_a_file_the_reader_rejects_is_not_shown(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from refbench.core.errors import RefbenchError
    from refbench.web import index

    data = _data(tmp_path)
    config = ServeConfig(data=data, store=tmp_path / "s.sqlite", index_dir=tmp_path / "index")
    app, catalog = _app(config)
    bad = next(ds for ds in catalog.datasets.values() if ds.task.name == "gap")
    real = index.build_index

    def failing(ds: Any, target: Path, **kw: Any) -> int:
        if ds.key == bad.key:
            raise RefbenchError("unreadable", path=ds.path)
        return real(ds, target, **kw)

    monkeypatch.setattr(index, "build_index", failing)
    assert Warmer(catalog).start().finished.wait(120)
    assert bad.key not in catalog.datasets and len(catalog.datasets) == 1
    assert "not shown:" in capsys.readouterr().err
    assert app.test_client().get(f"/data/{bad.key}").status_code == 404


def test_leaderboard_tables_are_kept_until_the_runs_change(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    from refbench.runs.runner import run_model
    from refbench.runs.store import Store
    from refbench.web import catalog as catalog_module
    from refbench.web import views_board

    monkeypatch.setattr(catalog_module, "RUNS_TTL_S", -1.0)  # the store re-read each time
    data = _data(tmp_path)
    store = Store(tmp_path / "s.sqlite")
    run_model("first", data[1], tmp_path / "runs" / "first", store=store, progress=False)
    config = ServeConfig(data=data, store=tmp_path / "s.sqlite", index_dir=tmp_path / "index")
    app, _ = _app(config)
    computed: list[str] = []
    real = views_board._table
    monkeypatch.setattr(views_board, "_table",
                        lambda ds, systems: computed.append(ds.key) or real(ds, systems))
    client = app.test_client()
    first = client.get("/leaderboard").get_data(as_text=True)
    assert computed and client.get("/leaderboard").get_data(as_text=True) == first
    assert len(computed) == 1  # the second time from the kept table
    run_model("last", data[1], tmp_path / "runs" / "last", store=store, progress=False)
    store.close()
    again = client.get("/leaderboard").get_data(as_text=True)
    assert len(computed) == 2 and again != first and "last" in again
