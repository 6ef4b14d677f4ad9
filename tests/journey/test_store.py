"""The results store: where it lives, what it lists, and every way it can be unusable (damaged,
foreign, newer, read-only, locked by another process), plus concurrent runs on one store."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from refbench.core.errors import RefbenchError
from refbench.models.base import ModelOutput
from refbench.runs.runner import run_model
from refbench.runs.store import APPLICATION_ID, SCHEMA_VERSION, Store, StoreError
from tests.conftest import run_cli
from tests.models.conftest import DATA

WSC = str(DATA["winograd"])
GAP = str(DATA["gap"])


def cli_env(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != "REFBENCH_STORE"}
    full.update(env)
    return subprocess.run([sys.executable, "-c", "from refbench.cli import main; main()", *args],
                          capture_output=True, text=True, cwd=cwd, env=full, check=False)


def test_default_store_belongs_to_the_project(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    legacy = tmp_path / "xdg" / "refbench" / "results.sqlite"
    legacy.parent.mkdir(parents=True)
    Store(legacy).close()
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    first = cli_env("run", "--model", "first", "--data", WSC, "--out", "r1", "--quiet",
                    cwd=project, env=env)
    assert first.returncode == 0, first.stderr
    assert (project / ".refbench" / "results.sqlite").is_file()
    assert "refbench now keeps results per project" in first.stderr  # the one-time note
    assert f"results import {legacy}" in first.stderr
    assert "run 1 in .refbench/results.sqlite" in first.stdout
    # from a subfolder, the project's store is found, and the note is not repeated
    second = cli_env("run", "--model", "last", "--data", WSC, "--out", "r2", "--quiet",
                     cwd=project / "sub", env=env)
    assert second.returncode == 0, second.stderr
    assert "per project" not in second.stderr
    assert f"run 2 in {project / '.refbench' / 'results.sqlite'}" in second.stdout
    ls = cli_env("results", "ls", cwd=project / "sub", env=env)
    assert ls.stdout.splitlines()[1].split() == [
        "id", "created", "(UTC)", "system", "task", "data", "split", "n", "accuracy", "output",
        "folder", "tags"]
    assert "2 runs in" in ls.stdout and "r2" in ls.stdout
    # REFBENCH_STORE wins; a listing never creates a store
    other = cli_env("results", "ls", cwd=project,
                    env={**env, "REFBENCH_STORE": str(tmp_path / "none.sqlite")})
    assert other.returncode == 2 and "no results store here" in other.stderr
    assert not (tmp_path / "none.sqlite").exists()
    elsewhere = cli_env("results", "ls", cwd=tmp_path, env=env)
    assert elsewhere.returncode == 2 and f"results import {legacy}" in elsewhere.stderr


def test_ls_show_tag_rm_add_import(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    for model in ("first", "last"):
        r = run_cli("run", "--model", model, "--data", GAP, "--out", str(tmp_path / model),
                    "--store", store, "--system", f"{model} baseline", "--quiet")
        assert r.returncode == 0, r.stderr
    rows = json.loads(run_cli("results", "ls", "--store", store, "--json").stdout)
    assert [r["run_id"] for r in rows] == [2, 1]
    assert rows[0]["split"] == "dev" and rows[0]["system"] == "last baseline"
    assert rows[0]["out_dir"] == str(tmp_path / "last") and rows[0]["created"]
    tag = run_cli("results", "tag", "1", "2", "--tag", "paper", "--store", store)
    assert tag.returncode == 0 and "run 2: tags paper" in tag.stdout
    run_cli("results", "tag", "2", "--tag", "paper", "--remove", "--store", store)
    tagged = json.loads(run_cli("results", "ls", "--tag", "paper", "--store", store,
                                "--json").stdout)
    assert [r["run_id"] for r in tagged] == [1]
    md = run_cli("report", "--from-store", "--tag", "paper", "--store", store).stdout
    assert "first baseline" in md and "last baseline" not in md
    show = json.loads(run_cli("results", "show", "1", "--store", store, "--json").stdout)
    assert show["metrics"]["n"] == 3 and show["tags"] == ["paper"]
    rm = run_cli("results", "rm", "1", "--store", store)
    assert rm.returncode == 0 and "removed run 1" in rm.stdout
    missing = run_cli("results", "show", "1", "--store", store)
    assert missing.returncode == 2 and "no run 1 in the results store" in missing.stderr
    assert (tmp_path / "first" / "predictions.jsonl").is_file()  # the folder stays
    add = run_cli("results", "add", str(tmp_path / "first"), "--store", store)
    assert add.returncode == 0 and "run 3: first baseline" in add.stdout
    rerun = run_cli("run", "--model", "first", "--data", GAP, "--out", str(tmp_path / "first"),
                    "--store", store, "--json", "--quiet")
    assert json.loads(rerun.stdout)["run_id"] == 3  # same output folder: the record is updated
    assert len(json.loads(run_cli("results", "ls", "--store", store, "--json").stdout)) == 2
    other = str(tmp_path / "other.sqlite")
    imp = run_cli("results", "import", store, "--store", other)
    assert imp.returncode == 0 and "copied 2 runs and 6 cached predictions" in imp.stdout
    again = run_cli("results", "import", store, "--store", other)
    assert "copied 0 runs and 0 cached predictions" in again.stdout
    (tmp_path / "empty").mkdir()
    bad = run_cli("results", "add", str(tmp_path / "empty"), "--store", store)
    assert bad.returncode == 2 and "not a run folder" in bad.stderr


V1_SCHEMA = """
CREATE TABLE runs (run_id INTEGER PRIMARY KEY AUTOINCREMENT, created TEXT NOT NULL,
    model TEXT NOT NULL, model_fingerprint TEXT NOT NULL, task TEXT NOT NULL, data TEXT NOT NULL,
    data_sha256 TEXT, n INTEGER NOT NULL, accuracy REAL, metrics TEXT NOT NULL, out_dir TEXT);
CREATE TABLE predictions (model_fingerprint TEXT NOT NULL, instance_hash TEXT NOT NULL,
    output TEXT NOT NULL, PRIMARY KEY (model_fingerprint, instance_hash));
INSERT INTO runs VALUES (1, '2024-01-01T00:00:00+00:00', 'first', 'fp', 'gap', 'gap-test.tsv',
    NULL, 3, 0.5, '{"task": "gap", "n": 3, "accuracy": 0.5}', 'runs/x');
"""


def test_version_1_store_is_read_then_migrated(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(V1_SCHEMA)
    with Store(path, readonly=True) as st:  # reading does not change the file
        assert st.version == 1 and st.runs()[0]["split"] is None
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    ls = run_cli("results", "ls", "--store", str(path), "--json")  # a reading command
    assert json.loads(ls.stdout)[0]["model"] == "first"
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    tag = run_cli("results", "tag", "1", "--tag", "old", "--store", str(path))  # a writing one
    assert tag.returncode == 0, tag.stderr
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    md = run_cli("report", "--from-store", "--store", str(path)).stdout
    assert "| first | gap-test.tsv | test | 3 | 0.500 |" in md


def _store_with_predictions(path: Path) -> None:
    with Store(path) as st:
        st.save_predictions("fp", [(f"h{i}", ModelOutput(0, (1.0, 0.0), (), {"pad": "x" * 300}))
                                   for i in range(400)])


def test_damaged_store(tmp_path: Path) -> None:
    path = tmp_path / "damaged.sqlite"
    _store_with_predictions(path)
    data = bytearray(path.read_bytes())
    page = 4096
    for off in range(2 * page, len(data) - page, page):  # every page after the schema
        data[off:off + 100] = b"\xff" * 100
    path.write_bytes(bytes(data))
    r = run_cli("run", "--model", "first", "--data", WSC, "--out", str(tmp_path / "o"),
                "--store", str(path), "--quiet")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "the results store is damaged" in r.stderr and str(path) in r.stderr
    header = tmp_path / "header.sqlite"
    header.write_bytes(b"this is not an sqlite file at all" * 200)
    r = run_cli("results", "ls", "--store", str(header))
    assert r.returncode == 2 and "damaged" in r.stderr and len(r.stderr.splitlines()) == 1


def test_foreign_and_newer_stores(tmp_path: Path) -> None:
    foreign = tmp_path / "app.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE users (id INTEGER, name TEXT)")
    r = run_cli("run", "--model", "first", "--data", WSC, "--out", str(tmp_path / "o"),
                "--store", str(foreign), "--quiet")
    assert r.returncode == 2 and "not a refbench results store (its tables: users)" in r.stderr
    assert not (tmp_path / "o").exists()
    lookalike = tmp_path / "runs.sqlite"
    with sqlite3.connect(lookalike) as db:
        db.execute("CREATE TABLE runs (id INTEGER, score REAL)")
        db.execute("CREATE TABLE predictions (x TEXT)")
    r = run_cli("results", "ls", "--store", str(lookalike))
    assert r.returncode == 2 and "not a refbench results store" in r.stderr
    newer = tmp_path / "newer.sqlite"
    Store(newer).close()
    with sqlite3.connect(newer) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    r = run_cli("results", "ls", "--store", str(newer))
    assert r.returncode == 2 and "newer than this refbench's" in r.stderr


def test_read_only_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    # SQLite's own read-only error becomes the one-line error
    st = Store(path)
    st.db.close()
    st.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    with pytest.raises(StoreError) as info:
        st.add_run(created="x", model="m", fingerprint="f", task="gap", data="d",
                   data_sha256=None, n=1, metrics={}, out_dir=None)
    assert info.value.kind == "readonly" and "read-only" in info.value.message
    # a store the user cannot write is refused before the model runs
    from refbench.cli import app
    from refbench.runs import store as store_module

    real_access = os.access
    monkeypatch.setattr(store_module.os, "access", lambda p, mode: False if (
        mode == os.W_OK and Path(p) in (path, path.parent)) else real_access(p, mode))
    result = CliRunner().invoke(app, ["run", "--model", "first", "--data", WSC, "--out",
                                      str(tmp_path / "o"), "--store", str(path), "--quiet"])
    assert isinstance(result.exception, StoreError)
    assert "read-only here" in result.exception.render() and "--no-store" in \
        result.exception.render()
    assert not (tmp_path / "o").exists()
    monkeypatch.undo()
    with Store(path, create=False, readonly=True) as ro:  # listing still works
        assert ro.runs() == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root writes read-only files anyway")
def test_read_only_file_through_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    path.chmod(0o444)
    r = run_cli("run", "--model", "first", "--data", WSC, "--out", str(tmp_path / "o"),
                "--store", str(path), "--quiet")
    assert r.returncode == 2 and "read-only" in r.stderr
    assert run_cli("results", "ls", "--store", str(path)).returncode == 0


LOCKER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
if sys.argv[2] == "wait":
    sys.stdin.readline()
else:
    time.sleep(float(sys.argv[2]))
db.execute("ROLLBACK")
"""


class LockingModel:
    """Wraps a model: on its first batch, another process takes the store's lock."""

    def __init__(self, model, path: Path, hold: str) -> None:  # type: ignore[no-untyped-def]
        self.model, self.path, self.hold = model, path, hold
        self.proc: subprocess.Popen[str] | None = None

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.model, name)

    def predict(self, batch):  # type: ignore[no-untyped-def]
        if self.proc is None:
            self.proc = subprocess.Popen([sys.executable, "-c", LOCKER, str(self.path),
                                          self.hold], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True)
            assert self.proc.stdout is not None
            assert self.proc.stdout.readline().strip() == "locked"
        return self.model.predict(batch)


def test_lock_held_by_another_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from refbench.models.base import build_model

    path = tmp_path / "s.sqlite"
    monkeypatch.setenv("REFBENCH_STORE_TIMEOUT", "0.5")
    store = Store(path)
    locking = LockingModel(build_model("first"), path, "wait")
    out = tmp_path / "run"
    with pytest.raises(RefbenchError) as info:
        run_model("first", WSC, out, store=store, progress=False,
                  model=locking)  # type: ignore[arg-type]
    message = info.value.args[0]
    assert "locked by another process" in message and f"refbench results add {out}" in message
    assert (out / "predictions.jsonl").is_file() and (out / "metrics.json").is_file()
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["uncached_batches"] == 1  # the cache write waited, gave up, the run went on
    assert locking.proc is not None and locking.proc.stdin is not None
    locking.proc.stdin.write("\n")
    locking.proc.stdin.flush()
    locking.proc.wait(timeout=30)
    add = run_cli("results", "add", str(out), "--store", str(path))
    assert add.returncode == 0 and "run 1: first" in add.stdout
    # a lock released within the timeout is simply waited for
    monkeypatch.setenv("REFBENCH_STORE_TIMEOUT", "30")
    store = Store(path)
    brief = LockingModel(build_model("last"), path, "1.0")
    metrics = run_model("last", WSC, tmp_path / "run2", store=store, progress=False,
                        model=brief)  # type: ignore[arg-type]
    assert brief.proc is not None and brief.proc.wait(timeout=30) == 0
    assert metrics["run_id"] == 2 and metrics["uncached_batches"] == 0


def test_concurrent_runs_on_one_store(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sqlite")
    jobs = [("first", WSC), ("last", WSC), ("random", GAP), ("first", GAP), ("first", WSC)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    procs = [subprocess.Popen([sys.executable, "-c", "from refbench.cli import main; main()",
                               "run", "--model", m, "--data", d, "--out",
                               str(tmp_path / f"r{i}"), "--store", path, "--json", "--quiet"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for i, (m, d) in enumerate(jobs)]
    results = [p.communicate(timeout=300) for p in procs]
    for p, (_, err) in zip(procs, results, strict=True):
        assert p.returncode == 0, err
    ids = sorted(json.loads(out)["run_id"] for out, _ in results)
    assert ids == [1, 2, 3, 4, 5]
    with Store(path) as st:
        runs = st.runs(limit=None)
        assert len(runs) == 5
        n_cached = st.db.execute("SELECT COUNT(*) FROM predictions").fetchone()[0]
    assert n_cached == 3 + 3 + 3 + 3  # first/last on WSC, random/first on GAP (3 each)
    first = [json.loads((tmp_path / f"r{i}" / "predictions.jsonl").read_text().splitlines()[0])
             for i in (0, 4)]
    assert first[0] == first[1]
