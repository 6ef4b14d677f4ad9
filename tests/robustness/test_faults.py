"""Interruptions and faults: killed and interrupted commands leave no workers and nothing
half-written; a later run cleans what a killed one left; resource paths stay in their folder."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click
import pytest

from refbench.core import interrupt
from refbench.core.errors import OutputError, ResourceError
from refbench.core.io import (
    atomic_write,
    output_group,
    prepare_output_dir,
    torch_save_atomic,
    write_text_atomic,
)
from tests.conftest import ROOT
from tests.robustness.harness import invoke
from tests.robustness.support import TINY, make_support, official_layout

LINUX = sys.platform.startswith("linux")
GENERATE = ["kitmus", "generate", "--sizes", "2000", "--splits", "test,train", "--formats",
            "conll,jsonl", "--workers", "2", "--quiet"]


# The command as a terminal starts it: SIGINT at Python's own handler. A process inherits an
# ignored SIGINT (a shell ignores it for the commands it starts in the background, e.g.
# `make test &` in a script) and Python then keeps ignoring it, so without this line the
# interrupt test depended on how pytest was started: with SIGINT ignored, generate ran to the
# end and exited 0 with nothing on stderr (issue 33).
AS_AT_A_TERMINAL = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                    "from refbench.cli import main; main()")


def _start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", AS_AT_A_TERMINAL, *args],
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, HF_HUB_OFFLINE="1"), start_new_session=True)


def _ignores(pid: int, sig: int) -> bool:
    """Whether process ``pid`` ignores signal ``sig`` (its SigIgn mask in /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    return False


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its parent's bookkeeping remains


def _wait_for(condition: Any, seconds: float = 60.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _running_generate(tmp_path: Path) -> tuple[subprocess.Popen[str], list[int]]:
    proc = _start([*GENERATE, "--out", str(tmp_path / "gen")], tmp_path)
    assert _wait_for(lambda: len(_children(proc.pid)) >= 2
                     and bool(list(tmp_path.glob(".gen.*.partial")))), "generate never started"
    return proc, _children(proc.pid)


@pytest.mark.skipif(not LINUX, reason="reads /proc")
def test_sigkill_of_generate_leaves_no_workers_and_the_next_run_cleans_up(
        tmp_path: Path) -> None:
    proc, workers = _running_generate(tmp_path)
    proc.kill()
    proc.wait()
    assert _wait_for(lambda: not any(_alive(w) for w in workers), 15), "orphan workers"
    stale = list(tmp_path.glob(".gen.*.partial"))
    assert len(stale) == 1  # a killed process cannot clean up; the next run does
    again = _start(["kitmus", "generate", "--out", str(tmp_path / "gen"), "--sizes", "2",
                    "--splits", "test", "--variants", "background-pretrain", "--entities", "2",
                    "--quiet"], tmp_path)
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert f"removed {stale[0]}" in err and "interrupted run" in err
    assert not list(tmp_path.glob(".gen.*")) and (tmp_path / "gen" / "stats.json").is_file()


@pytest.mark.skipif(not LINUX, reason="reads /proc")
@pytest.mark.parametrize(("sig", "code", "word"), [(signal.SIGINT, 130, "interrupted"),
                                                   (signal.SIGTERM, 143, "terminated")])
def test_interrupted_generate_says_so_and_leaves_nothing(tmp_path: Path, sig: int, code: int,
                                                         word: str) -> None:
    proc, workers = _running_generate(tmp_path)
    assert not _ignores(proc.pid, sig)  # the signal reaches the command's handler
    os.killpg(proc.pid, sig)  # as a terminal does: the whole process group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err
    assert f"{word}: nothing was written" in err and "Traceback" not in err
    assert "Aborted" not in err
    assert not list(tmp_path.iterdir())
    assert _wait_for(lambda: not any(_alive(w) for w in workers), 15)


def test_ctrl_c_says_what_was_kept_and_exits_130(capsys: pytest.CaptureFixture[str]) -> None:
    from refbench.core.commands import run_guarded

    @click.command()
    def slow() -> None:
        interrupt.note_kept("predictions for 3 of 9 instances are cached in S")
        raise KeyboardInterrupt

    assert run_guarded(slow, []) == 130
    err = capsys.readouterr().err
    assert err.strip().endswith("interrupted: predictions for 3 of 9 instances are cached in S")
    assert "Aborted" not in err


def test_run_caches_and_reports_what_an_interruption_keeps(tmp_path: Path) -> None:
    from refbench.runs.runner import predict_all
    from refbench.runs.store import Store
    from refbench.tasks.choices import read_choices

    insts = list(read_choices(ROOT / "tests" / "fixtures" / "winograd" / "wsc-tiny.jsonl"))
    from refbench.models.base import build_model

    model = build_model("random")
    model.batch_size = 1
    calls = {"n": 0}
    real = model.predict

    def predict(batch: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(batch)

    model.predict = predict  # type: ignore[method-assign]
    interrupt.reset()
    with pytest.raises(KeyboardInterrupt):
        predict_all(model, insts, Store(tmp_path / "s.sqlite"), progress=False)
    assert interrupt.kept().startswith("predictions for 2 of ")
    assert "run the same command again to resume" in interrupt.kept()


def _failing_suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    shutil.copytree(TINY, suite)
    last = sorted(suite.glob("*/subtask_3_ents/test.jsonl"))[-1]
    last.write_text(last.read_text().splitlines()[0][:-30] + "\n")  # a broken last subtask
    return suite


def test_a_failing_suite_run_leaves_no_file(tmp_path: Path) -> None:
    suite = _failing_suite(tmp_path)
    out = invoke(["run", "--model", "first", "--data", str(suite), "--out",
                  str(tmp_path / "runs"), "--no-store", "--quiet"], cwd=tmp_path, env={})
    assert out.code == 2 and out.stderr.strip().splitlines()[-1].startswith("error E400")
    assert not (tmp_path / "runs").exists()


def test_a_failing_tne_baseline_all_leaves_no_file(tmp_path: Path) -> None:
    docs = ROOT / "tests" / "fixtures" / "tne" / "docs.jsonl"
    out = tmp_path / "b"
    out.mkdir()
    (out / "combined").write_text("x")  # the 8th of 9 run folders cannot be written
    r = invoke(["tne", "baseline", "all", "--data", str(docs), "--out", str(out)],
               cwd=tmp_path, env={"REFBENCH_STORE": str(tmp_path / "store.sqlite")})
    assert r.code == 2 and "is not a folder" in r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["combined"]


def test_knowref_mine_keeps_nothing_when_the_funnel_fails(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    support = make_support(tmp_path / "s")
    import refbench.core.io as core_io

    def broken(path: Any, text: str) -> None:
        raise OutputError("cannot write here (no space left on device)", path=path)

    monkeypatch.setattr(core_io, "write_text_atomic", broken)
    r = invoke(["knowref", "mine", str(support / "corpus.txt"), "--out",
                str(tmp_path / "c.jsonl"), "--funnel", str(tmp_path / "f.json")],
               cwd=tmp_path, env={})
    assert r.code == 2 and "no space left" in r.stderr
    assert not (tmp_path / "c.jsonl").exists() and not (tmp_path / "f.json").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_output_group_undoes_every_write(tmp_path: Path) -> None:
    old = tmp_path / "old.txt"
    old.write_text("before\n")
    with pytest.raises(RuntimeError), output_group():
        write_text_atomic(tmp_path / "new" / "deep" / "a.txt", "a\n")
        write_text_atomic(old, "after\n")
        assert old.read_text() == "after\n"  # committed as it completes...
        raise RuntimeError("a later step fails")
    assert old.read_text() == "before\n"  # ...and undone together
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.txt"]


def test_failed_atomic_writes_leave_no_temporary_file(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    target = tmp_path / "model.pt"
    target.write_bytes(b"the good checkpoint")

    def half_save(obj: Any, f: Any) -> None:  # torch.save into the open temporary file
        f.write(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(torch, "save", half_save)
    with pytest.raises(OutputError, match="no space left"):
        torch_save_atomic({"w": 1}, target)
    assert target.read_bytes() == b"the good checkpoint"
    with pytest.raises(ValueError), atomic_write(tmp_path / "x.json") as fh:
        fh.write("{")
        raise ValueError("the writer fails half-way")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pt"]


def test_failed_plots_leave_nothing(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from refbench.reporting.plots import save_figure

    fig, _ = plt.subplots()
    with pytest.raises(OutputError, match=r"cannot draw a \.xyz file"):
        save_figure(fig, tmp_path / "p.xyz")
    fig, _ = plt.subplots()

    def fail(*args: Any, **kwargs: Any) -> None:
        Path(args[0]).write_bytes(b"\x89PNG half")
        raise OSError(5, "Input/output error")

    fig.savefig = fail  # type: ignore[method-assign]
    with pytest.raises(OutputError, match="Input/output error"):
        save_figure(fig, tmp_path / "p.png")
    assert not list(tmp_path.iterdir())


def test_stale_partial_folders_are_removed_or_named(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    for name, owner in (("dead", {"pid": dead.pid}), ("live", {"pid": os.getpid()}),
                        ("unknown", None)):
        d = tmp_path / f".out.{name}.partial"
        d.mkdir()
        if owner is not None:
            import socket

            (d / ".refbench-partial").write_text(json.dumps({**owner,
                                                             "host": socket.gethostname()}))
    tmp = prepare_output_dir(tmp_path / "out", overwrite=False)
    err = capsys.readouterr().err
    assert not (tmp_path / ".out.dead.partial").exists() and "interrupted run" in err
    assert (tmp_path / ".out.live.partial").exists() and "left alone" in err
    assert (tmp_path / ".out.unknown.partial").exists() and "no owner record" in err
    shutil.rmtree(tmp)


@pytest.mark.parametrize("noise_fp", ["../../../../../../etc/passwd", "/etc/passwd",
                                      "noise/escape.txt"])
def test_official_noise_paths_stay_inside_the_resource_folder(tmp_path: Path,
                                                              noise_fp: str) -> None:
    from refbench.tasks.kitmus.generate.official import load_official

    root = official_layout(tmp_path / "res", noise_fp)
    (root / "noise").mkdir()
    (root / "noise" / "escape.txt").symlink_to("/etc/passwd")  # a link out is refused too
    with pytest.raises(ResourceError, match="lies outside the resource folder") as info:
        load_official(root)
    assert info.value.path == str(root / "locations.csv") and info.value.line == 2
