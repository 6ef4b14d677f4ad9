"""The command line's memo (:mod:`refbench.cli.memo`): ``refbench evaluate`` asked again with
nothing changed prints the same bytes without importing refbench's code; anything it read,
listed or imported that changed, a new file beside an input, another environment, an option
that writes a file, a failure, or ``REFBENCH_NO_MEMO`` makes it run again.

Each run is a fresh interpreter. Whether a run was answered from the memo is seen by module
name: the probe prints, at exit, whether Click was imported."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from refbench.cli import memo
from tests.conftest import OFFICIAL, ROOT, needs_shared

TINY = ROOT / "tests" / "golden" / "kitmus-tiny" / "background-pretrain" / "subtask_2_ents" \
    / "task-text-only"
REAL = OFFICIAL / "released" / "background-train" / "subtask_2_ents" / "full-text"
C2F = OFFICIAL / "predictions" / "c2f-run1.background-train.subtask_2_ents.test.jsonlines.gz"

PROBE = """
import atexit, sys
atexit.register(lambda: print("CLICK=" + str("click" in sys.modules), file=sys.__stderr__))
from refbench.cli import main
main()
"""


def refbench(*args: str | Path, cache: Path, cwd: Path, **env: str
             ) -> tuple[int, str, str, bool]:
    """Exit code, stdout, stderr (less the probe's line) of ``refbench ARGS``, and whether it
    ran (imported Click) rather than being answered from the memo."""
    environ = dict(os.environ, HF_HUB_OFFLINE="1", REFBENCH_CACHE_DIR=str(cache), **env)
    done = subprocess.run([sys.executable, "-c", PROBE, *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=environ, check=False)
    lines = done.stderr.splitlines()
    probe = next(x for x in lines if x.startswith("CLICK="))
    err = "".join(x + "\n" for x in lines if not x.startswith("CLICK="))
    return done.returncode, done.stdout, err, probe == "CLICK=True"


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A gold and a prediction file of their own folder, a cache folder apart, all older than
    the memo's clock tick (files changed in the second before a run are never trusted)."""
    data = tmp_path / "data"
    data.mkdir()
    gold = shutil.copy(TINY / "test.v4_gold_conll", data / "test.v4_gold_conll")
    pred = shutil.copy(TINY / "test.jsonlines", data / "test.jsonlines")
    (tmp_path / "cache").mkdir()
    time.sleep(1.2)
    return Path(gold), Path(pred), tmp_path / "cache"


def evaluate(gold: Path, pred: Path, *more: str) -> list[str | Path]:
    return ["evaluate", "--task", "kitmus", "--gold", gold, "--pred", pred, *more]


def test_a_second_evaluate_is_answered_from_the_memo(inputs: tuple[Path, Path, Path],
                                                    tmp_path: Path) -> None:
    gold, pred, cache = inputs
    first = refbench(*evaluate(gold, pred, "--json"), cache=cache, cwd=tmp_path)
    assert first[0] == 0 and first[3]
    again = refbench(*evaluate(gold, pred, "--json"), cache=cache, cwd=tmp_path)
    assert again[:3] == first[:3] and not again[3]
    # the text table too, and its own entry
    text = refbench(*evaluate(gold, pred), cache=cache, cwd=tmp_path)
    assert text[3] and text[1] != first[1]
    assert refbench(*evaluate(gold, pred), cache=cache, cwd=tmp_path)[:4] == (*text[:3], False)


def test_what_the_answer_depends_on_is_checked(inputs: tuple[Path, Path, Path],
                                               tmp_path: Path) -> None:
    gold, pred, cache = inputs
    args = evaluate(gold, pred, "--json")
    first = refbench(*args, cache=cache, cwd=tmp_path)
    assert not refbench(*args, cache=cache, cwd=tmp_path)[3]
    # the predictions change (no clusters in the first document): scored again
    lines = pred.read_text(encoding="utf-8").splitlines()
    doc = json.loads(lines[0])
    doc["clusters"] = []
    pred.write_text("\n".join([json.dumps(doc), *lines[1:]]) + "\n", encoding="utf-8")
    changed = refbench(*args, cache=cache, cwd=tmp_path)
    assert changed[3] and changed[1] != first[1]
    assert json.loads(changed[1])["pronoun_accuracy"] < json.loads(first[1])["pronoun_accuracy"]
    # a file that appears beside an input: run again (a reader may look for neighbours)
    time.sleep(1.2)  # the changed file is now older than the clock tick: kept, then answered
    assert refbench(*args, cache=cache, cwd=tmp_path)[3]
    assert not refbench(*args, cache=cache, cwd=tmp_path)[3]
    (pred.parent / "notes.txt").write_text("x", encoding="utf-8")
    assert refbench(*args, cache=cache, cwd=tmp_path)[3]
    # another environment, another working folder: another entry
    assert refbench(*args, cache=cache, cwd=tmp_path, REFBENCH_SOMETHING="1")[3]
    assert refbench(*args, cache=cache, cwd=gold.parent)[3]


def test_what_is_never_answered_from_the_memo(inputs: tuple[Path, Path, Path],
                                              tmp_path: Path) -> None:
    gold, pred, cache = inputs
    out = tmp_path / "r.json"
    for _ in range(2):  # an option that writes a file
        assert refbench(*evaluate(gold, pred, "--out", out), cache=cache, cwd=tmp_path)[3]
        assert refbench(*evaluate(gold, pred, f"--out={out}"), cache=cache, cwd=tmp_path)[3]
    for _ in range(2):  # turned off
        assert refbench(*evaluate(gold, pred), cache=cache, cwd=tmp_path,
                        REFBENCH_NO_MEMO="1")[3]
    bad = tmp_path / "bad.jsonlines"
    bad.write_text("{not json\n", encoding="utf-8")
    time.sleep(1.2)
    for _ in range(2):  # a failure
        code, _out, err, ran = refbench(*evaluate(gold, bad), cache=cache, cwd=tmp_path)
        assert code == 2 and ran and "error E" in err
    assert not (cache / "memo").exists()


def test_which_invocations_may_be_kept() -> None:
    assert memo.enabled(["evaluate", "--task", "kitmus", "--gold", "g", "--pred", "p"])
    for argv in ([], ["run", "--model", "first"], ["evaluate", "--help"], ["evaluate", "-h"],
                 ["evaluate", "--pred", "-"], ["evaluate", "--out", "x"],
                 ["evaluate", "--plot=x.png"]):
        assert not memo.enabled(argv), argv


def test_a_folder_given_is_an_input_with_all_it_holds(tmp_path: Path) -> None:
    deep = tmp_path / "suite" / "a" / "b"
    deep.mkdir(parents=True)
    (deep / "test.jsonlines").write_text("{}", encoding="utf-8")
    given = memo._given_paths(["evaluate", "--task", "kitmus", f"--gold={tmp_path / 'suite'}",
                               "--pred", str(deep / "test.jsonlines"), "--json"])
    assert given == {str(tmp_path / "suite"), str(tmp_path / "suite" / "a"), str(deep),
                     str(deep / "test.jsonlines")}


@needs_shared(C2F)
def test_real_release_file_the_same_from_the_memo(tmp_path: Path) -> None:
    """A real release's gold and a published system's predictions: the memo's answer is the
    computed one, byte for byte, and imports nothing of refbench's."""
    gold = REAL / "test.v4_gold_conll.gz"
    cache = tmp_path / "cache"
    cache.mkdir()  # in the working folder, which imports list: made before the tick
    time.sleep(1.2)
    first = refbench(*evaluate(gold, C2F, "--json"), cache=cache, cwd=tmp_path)
    assert first[0] == 0 and first[3] and json.loads(first[1])["n"] == 2000
    again = refbench(*evaluate(gold, C2F, "--json"), cache=cache, cwd=tmp_path)
    assert again[:3] == first[:3] and not again[3]
    off = refbench(*evaluate(gold, C2F, "--json"), cache=cache, cwd=tmp_path,
                   REFBENCH_NO_MEMO="1")
    assert off[:3] == first[:3] and off[3]
