"""Every task's real release (../shared/data) in one model card: each cell equals the figure
its single run recorded, in the CLI (``report --json``), ``refbench.card(...)`` and the web
page's JSON (cheap systems; AltEntities with ``--limit``, so one partial cell)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED, cli_json, cli_ok, needs_shared

DATA = SHARED / "data"
pytestmark = needs_shared(DATA)


def _m(folder: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
    return found


def test_every_release_in_one_card_equals_its_single_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import refbench
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    store = tmp_path / "store.sqlite"
    monkeypatch.setenv("REFBENCH_DATA_DIR", str(DATA))
    monkeypatch.setenv("REFBENCH_STORE", str(store))
    runs = tmp_path / "runs"
    cli_ok(capsys, "run", "--model", "first", "--data", DATA / "winogender", "--out",
           runs / "winogender", "--quiet")
    cli_ok(capsys, "run", "--model", "first", "--data", DATA / "winograd/winogrande-dev.jsonl",
           "--out", runs / "winogrande", "--quiet")
    cli_ok(capsys, "run", "--model", "random", "--data", DATA / "altentities/books/test.json.gz",
           "--limit", "200", "--out", runs / "altentities", "--quiet")
    cli_ok(capsys, "tne", "baseline", "surface", "--data", DATA / "tne/test.jsonl.gz", "--out",
           runs / "tne", "--store", store)
    card = cli_json(capsys, "report", runs, "--card", "--json")
    rec = {(r["benchmark"], r["metric"]): r for r in card["records"]}

    wg = _m(next((runs / "winogender").rglob("metrics.json")).parent)
    assert rec[("winogender", "accuracy")]["value"] == wg["accuracy"]
    gotcha = rec[("winogender", "gotcha_accuracy")]
    assert gotcha["value"] == wg["gotcha_accuracy"]
    assert [gotcha["ci_low"], gotcha["ci_high"]] == wg["ci95"]["gotcha_accuracy"]  # Wilson
    assert gotcha["n"] == wg["winogender"]["gotcha"]["gotcha"]["n"]
    wr = _m(runs / "winogrande")
    assert (rec[("winogrande-dev", "accuracy")]["value"],
            rec[("winogrande-dev", "accuracy")]["n"]) == (wr["accuracy"], 1267)
    ae = _m(runs / "altentities")
    got = rec[("books/test", "accuracy")]
    assert (got["value"], got["n"], got["N"], got["partial"]) \
        == (ae["accuracy"], 200, ae["coverage_of"], True)
    tne = _m(runs / "tne")
    f1 = rec[("tne/test", "labeled_f1")]
    assert (f1["value"], f1["method"]) == (tne["labeled_f1"], "bootstrap")
    assert [f1["ci_low"], f1["ci_high"]] == tne["ci95"]["labeled_f1"]  # over documents
    assert f1["ci_low"] < f1["value"] < f1["ci_high"]
    assert card["benchmarks"] == sorted(card["benchmarks"])
    assert set(card["benchmarks"]) == {"books/test", "tne/test", "winogender",
                                       "winogrande-dev"}

    assert refbench.card([runs]).records() == card["records"]
    web = create_app(ServeConfig(store=store, index_dir=tmp_path / "index")).test_client()
    assert web.get("/card.json").get_json()["records"] == card["records"]
