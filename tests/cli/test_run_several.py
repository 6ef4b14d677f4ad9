"""``refbench run --data A --data B ... --out DIR``: every benchmark runs into ``DIR/<name>/`` as
it runs alone (same figures), is recorded, and one table (``DIR/summary.json``, ``refbench
report DIR``) has a row per benchmark. Before, only the last ``--data`` ran, silently."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED, needs_shared

DATA = SHARED / "data"
pytestmark = needs_shared(DATA)


@pytest.fixture
def releases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFBENCH_DATA_DIR", str(DATA))


def _metrics(folder: Path) -> dict[str, object]:
    data = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_three_benchmarks_give_the_figures_of_three_single_runs(
        tmp_path: Path, cli: Any, releases: None) -> None:
    names = ["wsc273", "gap:test", "knowref:test"]
    args = [a for n in names for a in ("--data", n)]
    done = cli("run", "--model", "first", *args, "--out", str(tmp_path / "many"), "--quiet")
    assert done.returncode == 0, done.stderr
    for name, folder in zip(names, ["wsc273", "gap-test", "knowref-test"], strict=True):
        alone = cli("run", "--model", "first", "--data", name, "--out",
                    str(tmp_path / f"one-{folder}"), "--json", "--no-store")
        assert alone.returncode == 0, alone.stderr
        single = json.loads(alone.stdout)
        together = _metrics(tmp_path / "many" / folder)
        for key in ("task", "n", "accuracy", "ci95", "slices", "data_sha256"):
            assert together[key] == single[key], (name, key)
        assert f"| {name} |" in done.stdout
    summary = json.loads((tmp_path / "many" / "summary.json").read_text(encoding="utf-8"))
    rows = {r["benchmark"]: r for r in summary["rows"]}
    assert list(rows) == names
    assert all(r["run_id"] is not None for r in rows.values())  # each recorded in the store
    wsc = rows["wsc273"]
    assert (wsc["n"], wsc["of"], wsc["chance"]) == (273, 273, 0.5)
    assert wsc["value"] == _metrics(tmp_path / "many" / "wsc273")["accuracy"]
    md = cli("report", str(tmp_path / "many"))  # the model card of the folder's runs
    assert md.returncode == 0, md.stderr
    assert "wsc273: Accuracy" in md.stdout and "(273 of 273)" in md.stdout
    tex = cli("report", str(tmp_path / "many"), "--format", "latex")
    assert tex.returncode == 0 and r"\multicolumn{1}{c}{knowref\_test}" in tex.stdout


def test_data_all_runs_every_release_present_and_skips_what_it_cannot(
        tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    for name in ("winograd", "tne"):
        (folder / name).symlink_to((DATA / name).resolve())
    monkeypatch.setenv("REFBENCH_DATA_DIR", str(folder))
    done = cli("run", "--model", "first", "--data", "all", "--limit", "10", "--out",
               str(tmp_path / "all"), "--quiet", "--no-store")
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "all" / "summary.json").read_text(encoding="utf-8"))
    assert [r["benchmark"] for r in summary["rows"]] == ["wsc273", "winogrande"]
    assert [(r["n"], r["of"]) for r in summary["rows"]] == [(10, 273), (10, 1267)]
    assert [s["benchmark"] for s in summary["skipped"]] == ["tne"]
    assert done.stderr.count("skipped tne:") == 1
    assert not (tmp_path / "all" / "tne" / "metrics.json").exists()


def test_an_error_in_one_of_several_named_benchmarks_stops_the_run(
        tmp_path: Path, cli: Any, releases: None) -> None:
    tne = DATA / "tne" / "test.jsonl.gz"
    done = cli("run", "--model", "first", "--data", "wsc273", "--data", str(tne), "--out",
               str(tmp_path / "x"), "--no-store", "--quiet")
    assert done.returncode == 2 and done.stderr.startswith("error E")
    assert "Traceback" not in done.stderr
    assert not os.path.exists(tmp_path / "x" / "summary.json")


def test_folder_names_are_distinct() -> None:
    from refbench.runs.multi import folder_names

    paths = [Path("a/books/test.json.gz"), Path("a/songs/test.json.gz"), Path("gap/test.tsv")]
    assert folder_names([str(p) for p in paths], paths) == ["test", "songs-test", "gap-test"]
    assert folder_names(["gap:test", "wsc273"], [Path("x"), Path("y")]) == ["gap-test",
                                                                          "wsc273"]


def test_a_release_folder_among_several_gets_its_pooled_row(tmp_path: Path, cli: Any,
                                                           releases: None) -> None:
    done = cli("run", "--model", "first", "--data", "winobias", "--data", "wsc273", "--limit",
               "5", "--out", str(tmp_path / "x"), "--no-store", "--quiet")
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "x" / "summary.json").read_text(encoding="utf-8"))
    wb = summary["rows"][0]
    assert (wb["benchmark"], wb["n"], wb["of"]) == ("winobias", 20, 1584)  # 4 files x 396
    assert wb["ci95"] is not None and wb["ci95"][0] <= wb["value"] <= wb["ci95"][1]
    assert (tmp_path / "x" / "winobias" / "results.json").is_file()
    assert "| winobias | winobias | Accuracy |" in done.stdout and "20 of 1584" in done.stdout
