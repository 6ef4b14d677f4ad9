"""Tasks declare their reader and scorer options (``Task.READER_OPTIONS``,
``Task.SCORER_OPTIONS``); the generic commands take them as ``--task-arg KEY=VALUE`` and by the
flags the task declares (AltEntities' ``--input``/``--max-words``, KnowRef's
``--switched-pred``), list them in ``--help`` and check them: an unknown key is one usage line
naming the task's options, a bad value names the option (and the flag) and what is expected."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import ROOT, SHARED

FIX = ROOT / "tests" / "fixtures"
ALT = FIX / "altentities" / "books-recipes.json"
WSC = FIX / "winograd" / "wsc-tiny.jsonl"
REAL_ALT = SHARED / "data" / "altentities" / "books" / "test.json.gz"


def cli(*args: str) -> tuple[int, str, str]:
    """``refbench ARGS`` in this process, as the console entry point runs it: (exit code,
    stdout, stderr)."""
    from refbench.cli import app
    from refbench.core.commands import run_guarded

    with CliRunner().isolation() as (out, err, _):
        code = run_guarded(app, list(args))
        sys.stdout.flush()
        sys.stderr.flush()
        return code, out.getvalue().decode(), err.getvalue().decode() if err else ""


def test_the_tasks_declare_their_options_with_option() -> None:
    from refbench.core.options import Option
    from refbench.tasks.lookup import get_task

    alt, knowref = get_task("altentities"), get_task("knowref")
    assert [o.name for o in alt.READER_OPTIONS] == ["input_type", "max_words"]
    assert all(isinstance(o, Option) for o in (*alt.READER_OPTIONS, *knowref.SCORER_OPTIONS))
    assert alt.check_options({"input": "infobox", "max-words": "40"}) == {
        "input_type": "infobox", "max_words": 40}
    assert [o.flags for o in knowref.SCORER_OPTIONS] == [("--switched-pred",),
                                                         ("--switched-gold",)]


@pytest.mark.parametrize("given", [["--input", "name"], ["--task-arg", "input=name"],
                                   ["--task-arg", "input_type=name"]])
def test_task_arg_and_the_tasks_flag_are_one_option(given: list[str], tmp_path: Path) -> None:
    code, _, err = cli("run", "--model", "first", "--data", str(ALT), "--out",
                       str(tmp_path / "r"), "--no-store", "--json", *given)
    assert code == 0, err
    meta = json.loads((tmp_path / "r" / "metrics.json").read_text())
    assert meta["reader_options"] == {"input_type": "name"}


@pytest.mark.parametrize(("args", "message"), [
    (["--task-arg", "colour=red"],
     "task altentities has no option 'colour'; its options: input_type (--input), max_words "
     "(--max-words)"),
    (["--input", "poster"],
     "--input: task altentities: option input_type='poster' is not one of name, infobox"),
    (["--max-words", "0"], "--max-words: task altentities: option max_words='0' is not an "
                           "integer >= 1"),
    (["--task-arg", "max_words=many"], "task altentities: option max_words='many' is not an "
                                       "integer"),
    (["--task-arg", "nokey"], "--task-arg expects key=value, got 'nokey'"),
])
def test_a_bad_task_option_is_one_usage_line(args: list[str], message: str,
                                             tmp_path: Path) -> None:
    code, _, err = cli("run", "--model", "first", "--data", str(ALT), "--out",
                       str(tmp_path / "r"), "--no-store", *args)
    assert code == 2 and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_another_tasks_option_is_refused_naming_this_tasks(tmp_path: Path) -> None:
    """Once silently ignored (``--input`` on a Winograd file): now a usage error."""
    code, _, err = cli("run", "--model", "first", "--data", str(WSC), "--out",
                       str(tmp_path / "r"), "--no-store", "--input", "infobox")
    assert code == 2
    assert "--input: task winograd has no option 'input_type'; its options: none" in err


def test_evaluate_takes_reader_and_scorer_options(tmp_path: Path) -> None:
    code, _, err = cli("run", "--model", "first", "--data", str(ALT), "--out",
                       str(tmp_path / "r"), "--no-store", "--task-arg", "input=name")
    assert code == 0, err
    code, _, err = cli("evaluate", "--task", "altentities", "--gold", str(ALT), "--pred",
                       str(tmp_path / "r"), "--max-words", "40", "--json")
    assert code == 0, err
    code, _, err = cli("evaluate", "--task", "altentities", "--gold", str(ALT), "--pred",
                       str(tmp_path / "r"), "--switched-pred", str(ALT))
    assert code == 2 and "--switched-pred: task altentities has no option 'switched_pred'" in err
    code, _, err = cli("evaluate", "--task", "knowref", "--gold", str(ALT), "--pred",
                       str(tmp_path / "r"), "--task-arg", f"switched_pred={tmp_path}/none")
    assert code == 2
    assert "task knowref: option switched_pred=" in err and "is not an existing file" in err


def test_export_hf_takes_the_tasks_options(tmp_path: Path) -> None:
    code, _, err = cli("export", "hf", str(ALT), "--out", str(tmp_path / "hf"), "--input",
                       "name", "--json")
    assert code == 0, err
    code, _, err = cli("export", "hf", str(WSC), "--out", str(tmp_path / "hf2"),
                       "--task-arg", "input=name")
    assert code == 2 and "task winograd has no option 'input'" in err


def test_help_lists_the_declared_options() -> None:
    for command in (["run"], ["evaluate"], ["export", "hf"], ["train"]):
        code, out, _ = cli(*command, "--help")
        assert code == 0
        assert "--task-arg" in out and "input_type (--input)" in " ".join(out.split())
        assert "--input VALUE" in out and "altentities:" in out
    code, out, _ = cli("evaluate", "--help")
    assert "--switched-pred VALUE" in out and "switched_pred (--switched-pred)" in \
        " ".join(out.split())


@pytest.mark.skipif(not REAL_ALT.is_file(), reason="needs ../shared/data/altentities")
def test_task_arg_and_alias_predict_byte_for_byte_as_before(tmp_path: Path) -> None:
    """On real AltEntities data, with a model that reads the candidates' text:
    ``--task-arg input=infobox`` and the task's ``--input infobox`` write the predictions that
    ``--input infobox`` wrote before the options moved (the reader options
    ``{"input_type": "infobox", "max_words": 40}`` given straight to the runner, as that
    command gave them), byte for byte; and the input type matters to this model."""
    from refbench.runs.record import RunSettings
    from refbench.runs.runner import run_model

    common = ["run", "--model", "embedding", "--data", str(REAL_ALT), "--limit", "12",
              "--no-store", "--quiet"]
    before = tmp_path / "before"
    run_model(RunSettings(model="embedding", limit=12,
                          reader_options={"input_type": "infobox", "max_words": 40}),
              REAL_ALT, before, progress=False)
    for name, args in (("task-arg", ["--task-arg", "input=infobox", "--task-arg",
                                     "max_words=40"]),
                       ("alias", ["--input", "infobox", "--max-words", "40"])):
        code, _, err = cli(*common, "--out", str(tmp_path / name), *args)
        assert code == 0, err
        assert (tmp_path / name / "predictions.jsonl").read_bytes() == \
            (before / "predictions.jsonl").read_bytes(), name
    run_model(RunSettings(model="embedding", limit=12, reader_options={"input_type": "name"}),
              REAL_ALT, tmp_path / "name", progress=False)
    assert (tmp_path / "name" / "predictions.jsonl").read_bytes() != \
        (before / "predictions.jsonl").read_bytes()
