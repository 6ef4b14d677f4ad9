"""Issue 50, point 2: a record is checked against its evidence. A run seals its
``metrics.json`` (sha256 of its predictions, its data and the record); every reader refuses a
record edited by hand or whose predictions changed after the run; older records are read,
"not verified: written before seals"; an interval always contains its figure."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED

WSC_TINY = ROOT / "tests" / "fixtures" / "winograd" / "wsc-tiny.jsonl"
DATA = SHARED / "data"


def _code(*args: str | Path) -> tuple[int, str, str]:
    from refbench.cli import app
    from refbench.core.commands import run_guarded

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = run_guarded(app, [str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def run_folder(tmp_path: Path) -> Path:
    import refbench

    out = tmp_path / "run"
    refbench.run("first", str(WSC_TINY), out=out, store=None, progress=False)
    return out


def _edit(folder: Path, **changes: object) -> None:
    f = folder / "metrics.json"
    data = json.loads(f.read_text(encoding="utf-8"))
    data.update(changes)
    f.write_text(json.dumps(data, indent=2), encoding="utf-8")


def test_a_run_is_sealed_and_verified(run_folder: Path) -> None:
    from refbench.core.result import Result
    from refbench.core.seal import verify

    metrics = json.loads((run_folder / "metrics.json").read_text(encoding="utf-8"))
    assert set(metrics["seal"]) >= {"predictions_sha256", "data_sha256", "record_sha256"}
    assert verify(metrics, folder=run_folder).state == "verified"
    assert Result.read(run_folder).coverage.n == 3
    code, out, _ = _code("results", "verify", "--rescore", run_folder)
    assert code == 0 and "verified: re-scored: the figures agree" in out


def test_a_figure_edited_by_hand_is_refused_by_every_reader(run_folder: Path,
                                                            tmp_path: Path) -> None:
    import refbench
    from refbench.core.errors import RefbenchError
    from refbench.core.result import Result
    from refbench.runs.record import run_folders

    metrics = json.loads((run_folder / "metrics.json").read_text(encoding="utf-8"))
    # inside its interval, so only the seal can tell
    lo, hi = metrics["ci95"]["accuracy"]
    _edit(run_folder, accuracy=hi)
    if hi == metrics["accuracy"]:
        _edit(run_folder, accuracy=lo)
    with pytest.raises(RefbenchError, match="changed after the run"):
        Result.read(run_folder)
    with pytest.raises(RefbenchError, match="changed after the run"):
        list(run_folders([run_folder]))
    with pytest.raises(RefbenchError, match="changed after the run"):
        refbench.report(run_folder)
    code, _, err = _code("report", run_folder)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    code, _, err = _code("results", "add", run_folder, "--store", tmp_path / "s.sqlite")
    assert code == 2 and "refused" in err
    code, out, _ = _code("results", "verify", run_folder)
    assert code == 2 and "refused" in out


def test_a_figure_outside_its_interval_is_refused_sealed_or_not(run_folder: Path) -> None:
    """The issue's 0.502 -> 0.99 on a record written before seals: the interval gives it
    away."""
    from refbench.core.errors import RefbenchError
    from refbench.core.result import Result

    f = run_folder / "metrics.json"
    data = json.loads(f.read_text(encoding="utf-8"))
    del data["seal"]
    data["accuracy"] = 0.99
    data["ci95"]["accuracy"] = [0.443, 0.560]
    f.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RefbenchError, match=r"accuracy 0.990 lies outside its own interval"):
        Result.read(run_folder)


def test_predictions_changed_after_the_run_are_refused(run_folder: Path) -> None:
    from refbench.core.errors import RefbenchError
    from refbench.core.result import Result

    pred = run_folder / "predictions.jsonl"
    pred.write_text(pred.read_text(encoding="utf-8").replace('"answer": 0', '"answer": 1'),
                    encoding="utf-8")
    with pytest.raises(RefbenchError, match=r"predictions\.jsonl changed after the run"):
        Result.read(run_folder)


def test_a_record_written_before_seals_is_read_and_said_not_verified(run_folder: Path
                                                                     ) -> None:
    from refbench.core.result import Result
    from refbench.core.seal import verify

    f = run_folder / "metrics.json"
    data = json.loads(f.read_text(encoding="utf-8"))
    del data["seal"]
    f.write_text(json.dumps(data), encoding="utf-8")
    assert verify(data, folder=run_folder).text() == "not verified: written before seals"
    assert Result.read(run_folder).coverage.n == 3
    code, out, _ = _code("results", "verify", run_folder)
    assert code == 0 and "not verified: written before seals" in out


def test_rescore_catches_a_record_whose_seal_was_recomputed(run_folder: Path) -> None:
    """The seal is a checksum, not a signature: --rescore scores the predictions again."""
    from refbench.core.seal import seal

    f = run_folder / "metrics.json"
    data = json.loads(f.read_text(encoding="utf-8"))
    data["accuracy"] = 1.0 if data["accuracy"] != 1.0 else 0.0
    data["ci95"]["accuracy"] = [0.0, 1.0]
    f.write_text(json.dumps(seal(data, run_folder / "predictions.jsonl")), encoding="utf-8")
    assert _code("results", "verify", run_folder)[0] == 0
    code, out, _ = _code("results", "verify", "--rescore", run_folder)
    assert code == 2 and "but its predictions score" in out


_RELEASES = ["wsc273", "winogrande", "gap:test", "knowref:test", "knowref:dev",
             "altentities:books-test", "winogender", "winobias",
             str(DATA / "kitmus-official" / "released" / "background-train" / "subtask_2_ents"
                 / "full-text" / "test.v4_gold_conll.gz")]


@pytest.mark.skipif(not DATA.is_dir(), reason=f"{DATA} not present")
@pytest.mark.parametrize("release", _RELEASES)
def test_every_task_s_intervals_contain_their_figures(release: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Every figure a run of every task writes lies inside its own interval (what the
    readers check), and the record verifies."""
    import refbench
    from refbench.core.seal import interval_breach, verify
    from refbench.runs.record import run_folders

    monkeypatch.setenv("REFBENCH_DATA_DIR", str(DATA))
    out = tmp_path / "run"
    refbench.run("first", release, limit=60, out=out, store=None, progress=False)
    found = list(run_folders([out]))
    assert found
    for folder, metrics in found:
        assert "ci95" in metrics, folder
        assert interval_breach(metrics) is None
        assert verify(metrics, folder=folder).state == "verified"


def test_a_store_row_edited_by_hand_is_refused_by_report(tmp_path: Path) -> None:
    """The store keeps the sealed record: ``report --from-store`` checks it too."""
    import sqlite3

    import refbench

    store = tmp_path / "s.sqlite"
    refbench.run("first", str(WSC_TINY), out=tmp_path / "run", store=store, progress=False)
    assert _code("report", "--from-store", "--store", store)[0] == 0
    with sqlite3.connect(store) as db:
        (text,) = db.execute("SELECT metrics FROM runs").fetchone()
        metrics = json.loads(text)
        lo, hi = metrics["ci95"]["accuracy"]
        metrics["accuracy"] = hi if metrics["accuracy"] != hi else lo
        db.execute("UPDATE runs SET metrics = ?", (json.dumps(metrics),))
    db.close()
    code, _, err = _code("report", "--from-store", "--store", store)
    assert code == 2 and "changed after the run" in err, err
