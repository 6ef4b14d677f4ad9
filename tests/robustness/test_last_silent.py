"""The last silent failures (issue 23), beyond what the bad-input table can see: inputs left
byte-identical when an output names them, a damaged store never written to, a full disk while
writing the store, temporaries of killed writers removed by the next write."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.core.io import write_text_atomic
from refbench.core.output_checks import check_not_input, same_path
from refbench.core.outputs import _owner_tag, remove_stale_temporaries
from refbench.runs.store import Store, StoreError
from tests.robustness.cases import _damaged_store
from tests.robustness.harness import invoke
from tests.robustness.support import make_support

WSC = str(Path(__file__).resolve().parents[1] / "fixtures" / "winograd" / "wsc-tiny.jsonl")


@pytest.fixture(scope="module")
def support(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_support(tmp_path_factory.mktemp("support"))


def _run(args: list[str], cwd: Path) -> tuple[int, str]:
    out = invoke(args, cwd=cwd, env={"REFBENCH_STORE": str(cwd / "store.sqlite"),
                                     "HF_HUB_OFFLINE": "1"})
    assert out.traceback is None, out.traceback
    return out.code, out.stderr


@pytest.mark.parametrize("spelling", ["same", "hard link", "symlink", "dot"])
def test_output_naming_an_input_leaves_it_unchanged(spelling: str, support: Path,
                                                    tmp_path: Path) -> None:
    gold = tmp_path / "g.jsonl"
    shutil.copyfile(support / "kitmus.jsonl", gold)
    before = gold.read_bytes()
    out = {"same": gold, "dot": Path("./g.jsonl"), "hard link": tmp_path / "h.jsonl",
           "symlink": tmp_path / "s.jsonl"}[spelling]
    if spelling == "hard link":
        os.link(gold, out)
    elif spelling == "symlink":
        out.symlink_to(gold)
    code, err = _run(["evaluate", "--task", "kitmus", "--gold", str(gold), "--pred",
                      str(support / "kitmus-answers.jsonl"), "--out", str(out)], tmp_path)
    assert code == 2 and "is also an input of this command (--gold)" in err
    assert gold.read_bytes() == before


def test_check_not_input_rules(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.jsonl").write_text("x\n")
    assert same_path(tmp_path / "d" / ".." / "d", tmp_path / "d")
    with pytest.raises(RefbenchError, match="holds an input"):
        check_not_input(tmp_path / "d", [(tmp_path / "d" / "x.jsonl", "--data")], kind="dir")
    # A file written inside an input folder is not the input itself.
    check_not_input(tmp_path / "d" / "r.json", [(tmp_path / "d", "--pred")])
    check_not_input(tmp_path / "other", [(tmp_path / "d" / "x.jsonl", "--data")], kind="dir")


@pytest.mark.parametrize("args", [
    ["results", "ls"], ["results", "show", "1"], ["results", "tag", "1", "--tag", "x"],
    ["results", "rm", "1"], ["report", "--from-store"],
    ["run", "--model", "first", "--quiet", "--data", WSC, "--out", "o"]])
def test_damaged_store_is_refused_and_never_written(args: list[str], tmp_path: Path) -> None:
    _damaged_store(tmp_path, tmp_path)
    store = tmp_path / "s.sqlite"
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] != "ok"
    before = store.read_bytes()
    code, err = _run([*args, "--store", str(store)], tmp_path)
    assert code == 2 and "the results store is damaged" in err
    assert len(err.strip().splitlines()) == 1
    assert store.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]


def test_reading_commands_open_the_store_read_only(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    code, _ = _run(["run", "--model", "first", "--quiet", "--data", WSC, "--out", "o",
                    "--store", str(store)], tmp_path)
    assert code == 0
    before = (store.read_bytes(), store.stat().st_mtime_ns)
    os.chmod(store, 0o444)
    os.chmod(tmp_path, 0o555)  # no journal could be made here either
    try:
        for args in (["results", "ls"], ["results", "show", "1"], ["report", "--from-store"]):
            code, err = _run([*args, "--store", str(store)], tmp_path)
            assert code == 0, err
    finally:
        os.chmod(tmp_path, 0o755)
    assert (store.read_bytes(), store.stat().st_mtime_ns) == before


def test_full_disk_while_creating_the_store(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    def full(self: Store, *, new: bool) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Store, "_open_schema", full)
    path = tmp_path / "new" / "deeper" / "results.sqlite"
    with pytest.raises(StoreError) as info:
        Store(path)
    assert info.value.code == 300 and "no space left on device" in info.value.render()
    assert not (tmp_path / "new").exists()


def test_full_disk_on_a_real_small_file_system(tmp_path: Path) -> None:
    """A 64 KiB tmpfs, filled: ``run`` recording into a new store there (needs mount)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
                      capture_output=True, check=False).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        with open(disk / "fill", "wb") as fh:
            try:
                fh.write(b"\0" * 65536)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
        code, err = _run(["run", "--model", "first", "--quiet", "--data", WSC, "--out",
                          str(tmp_path / "o"), "--store", str(disk / "s" / "results.sqlite")],
                         tmp_path)
        assert code == 2 and "error E300" in err and "no space left on device" in err
        assert sorted(p.name for p in disk.iterdir()) == ["fill"]
        assert not (tmp_path / "o").exists()
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def test_temporaries_of_a_killed_writer_go_with_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "predictions.jsonl"
    code = ("import sys, time; from refbench.core.io import atomic_write\n"
            "with atomic_write(sys.argv[1]) as fh:\n"
            "    fh.write('half'); print('writing', flush=True); time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(target)], stdout=subprocess.PIPE,
                            text=True, env=dict(os.environ))
    assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    left = list(tmp_path.glob(".predictions.jsonl.*.tmp.jsonl"))
    assert len(left) == 1 and not target.exists()
    # A temporary whose writer is alive (this process) stays.
    alive = tmp_path / f".predictions.jsonl.{os.getpid()}@{left[0].name.split('@')[1]}"
    alive.write_text("being written")
    write_text_atomic(target, "done\n")
    assert target.read_text() == "done\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, alive.name])
    assert remove_stale_temporaries(target) == []


def test_stale_temporaries_are_removed_by_a_command(support: Path, tmp_path: Path) -> None:
    host = _owner_tag().split("@")[1]
    stale = tmp_path / f".r.json.999999999@{host}.ab12.tmp.json"  # a pid no process has
    stale.write_text("{")
    code, err = _run(["evaluate", "--task", "kitmus", "--gold", str(support / "kitmus.jsonl"),
                      "--pred", str(support / "kitmus-answers.jsonl"), "--out",
                      str(tmp_path / "r.json"), "--bootstrap", "0"], tmp_path)
    assert code == 0, err
    assert not stale.exists() and (tmp_path / "r.json").is_file()
