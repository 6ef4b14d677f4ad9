"""Issue 50, point 2 in ``refbench serve``: a run's record is checked against its evidence
(:mod:`refbench.core.seal`) before any page shows its figures.

A record that is refused (a figure edited by hand, predictions changed after the run) shows
its figure on no page and is listed under "Not shown" with the reason, like a run whose
predictions are unreadable; a record written before seals is shown, marked "not verified:
written before seals" on every page that shows its figures (run page, leaderboard row,
compare page, model card cell).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED, needs_shared
from tests.web.conftest import FIX

EDITED = 0.9876  # a figure no run of the fixture can have: 3 instances


def _runs(root: Path) -> tuple[Path, Path]:
    """A Winograd file (3 instances) with run folders of ``first`` and ``random`` (no store)."""
    from refbench.runs.runner import run_model

    data = root / "wsc.jsonl"
    shutil.copy(FIX / "winograd-xss.jsonl", data)
    for model in ("first", "random"):
        run_model(model, data, root / "runs" / model, store=None, progress=False)
    return data, root / "runs"


def _app(root: Path, data: Path, runs: Path) -> Any:
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig
    from refbench.web.serve import prepare

    app = create_app(ServeConfig(data=[data], run_dirs=[runs], store=root / "none.sqlite",
                                 index_dir=root / "index"))
    prepare(app.config["CATALOG"], progress=False)
    return app


def _pages(app: Any) -> dict[str, str]:
    """Every page that shows a run's figures, with each served run's own pages."""
    cat = app.config["CATALOG"]
    (key,) = list(cat.datasets)
    sids = [s.sid for s in cat.systems(cat.datasets[key])]
    urls = ["/", "/leaderboard", "/card", "/card.json", f"/data/{key}",
            f"/compare?data={key}" + "".join(f"&sys={s}" for s in sids)]
    urls += [u for r in cat.runs() for u in (f"/runs/{r.rid}", f"/runs/{r.rid}.json")]
    client = app.test_client()
    pages = {}
    for url in urls:
        answer = client.get(url)
        assert answer.status_code == 200, url
        pages[url] = answer.get_data(as_text=True)
    return pages


def _metrics(folder: Path) -> dict[str, Any]:
    return dict(json.loads((folder / "metrics.json").read_text(encoding="utf-8")))


def _write(folder: Path, metrics: dict[str, Any]) -> None:
    (folder / "metrics.json").write_text(json.dumps(metrics, indent=2), encoding="utf-8")


def test_sealed_runs_are_shown_unmarked(tmp_path: Path) -> None:
    data, runs = _runs(tmp_path)
    pages = _pages(_app(tmp_path, data, runs))
    assert "/compare?data=" in "".join(pages)  # both systems compared
    assert all("not verified" not in body for body in pages.values())
    first = _metrics(runs / "first")["accuracy"]
    assert f"{first:.3f}" in pages["/leaderboard"]


@pytest.mark.parametrize("interval", ["kept", "widened"])
def test_an_edited_figure_appears_on_no_page(tmp_path: Path, interval: str) -> None:
    data, runs = _runs(tmp_path)
    metrics = _metrics(runs / "first")
    metrics["accuracy"] = EDITED  # as by hand: 0.502 -> 0.99
    if interval == "widened":  # the interval edited too: only the seal tells
        metrics["ci95"]["accuracy"] = [0.0, 1.0]
    _write(runs / "first", metrics)
    app = _app(tmp_path, data, runs)
    cat = app.config["CATALOG"]
    assert [r.model for r in cat.runs()] == ["random"]
    (path, why), = cat.run_problems
    assert path.endswith("first/metrics.json")
    assert why.startswith("run d") and " (first) is not shown: its record is refused (" in why
    pages = _pages(app)
    for url, body in pages.items():
        assert "0.988" not in body and "0.9876" not in body, url
    assert "(first) is not shown: its record is refused" in pages["/"]
    rid = why.split()[1]
    answer = app.test_client().get(f"/runs/{rid}")
    assert answer.status_code == 404
    assert "its record is refused" in answer.get_data(as_text=True)
    assert "0.988" not in answer.get_data(as_text=True)


def test_predictions_changed_after_the_run_are_refused(tmp_path: Path) -> None:
    data, runs = _runs(tmp_path)
    pred = runs / "first" / "predictions.jsonl"
    rows = [json.loads(line) for line in pred.read_text(encoding="utf-8").splitlines()]
    rows[0]["answer"] = 1 - rows[0]["answer"]
    pred.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    app = _app(tmp_path, data, runs)
    cat = app.config["CATALOG"]
    assert [r.model for r in cat.runs()] == ["random"]
    (_, why), = cat.run_problems
    assert "predictions.jsonl changed after the run" in why


def test_a_record_written_before_seals_is_marked_on_every_page(tmp_path: Path) -> None:
    data, runs = _runs(tmp_path)
    metrics = _metrics(runs / "first")
    del metrics["seal"]
    _write(runs / "first", metrics)
    app = _app(tmp_path, data, runs)
    cat = app.config["CATALOG"]
    assert sorted(r.model for r in cat.runs()) == ["first", "random"]
    assert cat.run_problems == []
    first = next(r for r in cat.runs() if r.model == "first")
    random = next(r for r in cat.runs() if r.model == "random")
    pages = _pages(app)
    mark = "not verified: written before seals"
    compare = next(u for u in pages if u.startswith("/compare"))
    for url in (f"/runs/{first.rid}", "/leaderboard", compare, "/card"):
        assert mark in pages[url], url
        assert f"{metrics['accuracy']:.3f}" in pages[url], url  # the figure is shown
    assert mark not in pages[f"/runs/{random.rid}"]
    # the mark is on the first system's row, not on random's
    board = pages["/leaderboard"]
    assert board.count('class="badge warn unverified"') == 1


@needs_shared(SHARED / "data" / "winograd")
def test_the_issue_s_edit_on_wsc273_appears_on_no_page(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's case: ``first`` on WSC273 scores 0.502; its metrics.json edited to 0.99."""
    import refbench

    monkeypatch.setenv("REFBENCH_DATA_DIR", str(SHARED / "data"))
    runs = tmp_path / "runs"
    for model in ("first", "random"):
        refbench.run(model, "wsc273", out=runs / model, store=None, progress=False)
    metrics = _metrics(runs / "first")
    assert f"{metrics['accuracy']:.3f}" == "0.502"
    metrics["accuracy"] = 0.99
    _write(runs / "first", metrics)
    data = Path(str(metrics["data"]))
    app = _app(tmp_path, data, runs)
    assert [r.model for r in app.config["CATALOG"].runs()] == ["random"]
    reason = "accuracy 0.990 lies outside its own interval [0.443, 0.560]"
    pages = _pages(app)
    assert reason in pages["/"]  # under "Not shown": the reason, not a figure
    for url, body in pages.items():
        assert "0.990" not in body.replace(reason, ""), url
        assert "0.502" not in body, url
