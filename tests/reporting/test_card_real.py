"""The model card over real releases (../shared/data): two systems (``first``, ``random``) run
with several ``--data`` each; ``refbench report A B --json``, ``report --from-store --card``
and ``refbench.card(...)`` give the same records, one cell per system x benchmark, each figure
the one the single runs recorded (GAP over its 1,773 examples with gold, WinoBias' Pro / Anti
/ Diff, KITMUS per subtask)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED, cli_json, cli_ok, needs_shared

DATA = SHARED / "data"
pytestmark = needs_shared(DATA)
SUBTASK = DATA / "kitmus-official/released/background-train/subtask_2_ents/full-text"


def _metrics(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.fixture
def releases(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("REFBENCH_DATA_DIR", str(DATA))
    store = tmp_path / "store.sqlite"
    monkeypatch.setenv("REFBENCH_STORE", str(store))
    return store


def _run(capsys: pytest.CaptureFixture[str], model: str, out: Path, *data: str | Path) -> None:
    args = [a for d in data for a in ("--data", str(d))]
    cli_ok(capsys, "run", "--model", model, *args, "--out", out, "--quiet")


def test_two_systems_on_five_benchmarks_one_card_everywhere(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], releases: Path) -> None:
    import refbench

    data = ("wsc273", "gap:test", "knowref:test", DATA / "winobias",
            SUBTASK / "test.jsonlines.gz")
    many, rand = tmp_path / "many", tmp_path / "many-random"
    _run(capsys, "first", many, *data)
    _run(capsys, "random", rand, *data)
    _run(capsys, "first", tmp_path / "again", "wsc273")  # a duplicate: the store keeps both
    card = cli_json(capsys, "report", many, rand, "--json")
    assert card["systems"] == ["first", "random"]
    assert card["benchmarks"] == ["gap-test", "kitmus:released", "knowref_test", "winobias",
                                  "wsc273"]
    rec = {(r["system"], r["benchmark"], r["metric"]): r for r in card["records"]}
    for system, folder in (("first", many), ("random", rand)):
        wsc = _metrics(folder / "wsc273" / "metrics.json")
        assert rec[(system, "wsc273", "accuracy")]["value"] == wsc["accuracy"]
        assert rec[(system, "wsc273", "accuracy")]["method"] == "wilson"
        gap = _metrics(folder / "gap-test" / "metrics.json")
        for metric in ("f1", "bias"):
            got = rec[(system, "gap-test", metric)]
            assert (got["value"], got["n"], got["N"]) == (gap[metric], 1773, 2000)
            assert [got["ci_low"], got["ci_high"]] == gap["ci95"][metric]
            assert got["method"] == "bootstrap"
        knowref = _metrics(folder / "knowref-test" / "metrics.json")
        assert rec[(system, "knowref_test", "accuracy")]["value"] == knowref["accuracy"]
        wb = _metrics(folder / "winobias" / "results.json")
        for metric in ("pro", "anti", "avg", "diff"):
            assert rec[(system, "winobias", metric)]["value"] == wb[f"all_{metric}"]
        assert [rec[(system, "winobias", "pro")][k] for k in ("ci_low", "ci_high")] \
            == wb["ci95"]["all_pro"]  # the Wilson interval the release's table recorded
        km = _metrics(folder / "test" / "metrics.json")
        cell = rec[(system, "kitmus:released", "background-pretrain/2")]
        assert (cell["value"], cell["n"]) == (km["pronoun_accuracy"], 2000)
    assert len(card["records"]) == len(rec)  # no record twice

    stored = cli_json(capsys, "report", "--from-store", "--card", "--json")
    assert stored["records"] == card["records"]
    assert any("1 duplicate run" in n for n in stored["notes"])
    only = cli_json(capsys, "report", "--from-store", "--card", "--json", "--system",
                    "random", "--task", "gap")
    assert {(r["system"], r["benchmark"]) for r in only["records"]} == {("random", "gap-test")}

    assert refbench.card([many, rand]).records() == card["records"]
    text = cli_ok(capsys, "report", many, rand, "--format", "latex")
    assert str(DATA) not in text and r"\multicolumn{4}{c}{winobias}" in text
    marked = cli_json(capsys, "report", many, rand, "--json", "--against", "first")
    assert marked["against"] == "first"
    assert all(r["p_holm"] is None for r in marked["records"] if r["system"] == "first")

    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    web = create_app(ServeConfig(store=releases, index_dir=tmp_path / "index")).test_client()
    page = web.get("/card")
    assert page.status_code == 200 and b"kitmus:released" in page.data
    assert b"/runs/s" in page.data and b"/compare?data=" in page.data
    assert web.get("/card.json").get_json()["records"] == card["records"]
    assert b'href="/card"' in web.get("/leaderboard").data
