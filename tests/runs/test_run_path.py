"""The one run path gives main's run folders and figures, byte for byte (normalised only where
runs legitimately differ: folders, times, command line, commit): ``refbench run --model random``
on a data file (WSC273), a small KITMUS suite, the WinoBias release and the three at once,
against ``tests/fixtures/runs/run-path.json`` (recorded with main's code by
``scripts/regen_run_path.py``). ``refbench.run`` with ``out`` writes the same folders."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from scripts.regen_run_path import DATA, FIXTURE, SUITE_ARGS, cases, command, places

from tests.runs.reference import (
    normalised_folder,
    normalised_json,
    normalised_text,
    unsealed_line,
)

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason="needs ../shared/data")


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from refbench.cli import app
    from refbench.core.commands import run_guarded

    out = tmp_path_factory.mktemp("rp") / "suite"
    with contextlib.redirect_stdout(io.StringIO()):
        assert run_guarded(app, ["kitmus", "generate", "--out", str(out), *SUITE_ARGS]) == 0
    return out


def _same(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert sorted(got) == sorted(want)
    for rel in want:
        assert got[rel] == want[rel], rel


@pytest.mark.parametrize("name", ["file", "suite", "winobias", "many"])
def test_command_gives_mains_folders(name: str, suite: Path, tmp_path: Path,
                                     reference: dict[str, Any]) -> None:
    from refbench.cli import app
    from refbench.core.commands import run_guarded

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert run_guarded(app, command(name, cases(suite)[name], tmp_path)) == 0
    line = buf.getvalue().strip().splitlines()[-1]
    where = places(tmp_path, suite)
    want = reference[name]
    text, printed = unsealed_line(line)
    assert normalised_json(printed, where) == want["printed"]
    assert normalised_text(text, where) == want["printed_sha256"]
    _same(normalised_folder(tmp_path / name, where), want["files"])


@pytest.mark.parametrize("name", ["file", "suite", "many"])
def test_python_api_writes_the_same_folders(name: str, suite: Path, tmp_path: Path,
                                            reference: dict[str, Any]) -> None:
    from dataclasses import fields

    import refbench
    from refbench.core.result import Result as TypedResult

    data = cases(suite)[name]
    got = refbench.run("random", data if name == "many" else data[0], out=tmp_path / name,
                       store=None, progress=False)
    files = normalised_folder(tmp_path / name, places(tmp_path, suite))
    want = reference[name]["files"]
    assert sorted(files) == sorted(want)
    for rel, value in want.items():  # the command line differs in provenance only
        if "text_sha256" in value:
            prov = files[rel]["json"].get("provenance")
            assert {k: v for k, v in files[rel]["json"].items() if k != "provenance"} == \
                {k: v for k, v in value["json"].items() if k != "provenance"}, rel
            assert (prov is None) == (value["json"].get("provenance") is None)
        else:
            assert files[rel] == value, rel
    results = got if isinstance(got, list) else [got]
    n_runs = sum(1 for rel in want if rel.endswith("metrics.json"))
    assert len(results) == n_runs
    metrics = {rel: v["json"] for rel, v in want.items() if rel.endswith("metrics.json")}
    for r in results:
        assert r.out_dir is not None
        rel = (Path(r.out_dir) / "metrics.json").relative_to(tmp_path / name).as_posix()
        assert r.figures["accuracy"] == metrics[rel]["accuracy"], rel
        assert len(r.rows) == metrics[rel]["n"]
        # the Result made in memory is the one its metrics.json reads back as
        written = TypedResult.read(r.out_dir)
        assert {f.name: getattr(r, f.name) for f in fields(TypedResult)} == \
            {f.name: getattr(written, f.name) for f in fields(TypedResult)}, rel


def test_without_out_nothing_is_written(suite: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """``refbench.run(..., out=None)``: the same figures and rows as with a folder, and no
    file left anywhere (a task's own scorer reads a scratch predictions file, removed)."""
    import tempfile

    import refbench

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.chdir(scratch)
    kept = refbench.run("random", suite, out=tmp_path / "kept", store=None, progress=False)
    before = sorted(tmp_path.rglob("*"))
    loose = refbench.run("random", suite, out=None, store=None, progress=False)
    assert sorted(tmp_path.rglob("*")) == before
    assert isinstance(kept, list) and isinstance(loose, list)
    assert [r.figures.as_dict() for r in loose] == [r.figures.as_dict() for r in kept]
    assert [r.rows for r in loose] == [r.rows for r in kept]
    assert all(r.out_dir is None for r in loose) and all(r.out_dir for r in kept)
    assert [r.key for r in loose] == [r.key for r in kept]


def test_a_model_object_runs_under_its_name(tmp_path: Path) -> None:
    """A :class:`ChoiceModel` object is run as it is: its name is the run's model, and it
    gives what its spec gives."""
    import refbench
    from refbench.core.errors import UsageError
    from refbench.models.base import build_model

    wsc = DATA / "winograd" / "wsc273.jsonl"
    model = build_model("random", {"seed": 3})
    got = refbench.run(model, wsc, limit=20, store=None, progress=False)
    want = refbench.run("random", wsc, limit=20, store=None, progress=False, seed=3)
    assert not isinstance(got, list) and not isinstance(want, list)
    assert got.system.model == model.name == "random"
    assert got.system.fingerprint == want.system.fingerprint
    assert got.figures.as_dict() == want.figures.as_dict()
    assert [r["answer"] for r in got.rows] == [r["answer"] for r in want.rows]
    with pytest.raises(UsageError, match="not for an instance"):
        refbench.run(model, wsc, store=None, seed=1)
