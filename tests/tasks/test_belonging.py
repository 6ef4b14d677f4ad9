"""Issue 50, point 1: predictions and gold must belong together. ``evaluate`` (the command and
``refbench.evaluate``) refuses predictions made on other data, in one line, exit code 2: by
id, and by content where the ids agree but the run recorded other data. On main each of
these printed a figure (0.000, or a partial figure of the wrong split) and exited 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED

DATA = SHARED / "data"
WSC_TINY = ROOT / "tests" / "fixtures" / "winograd" / "wsc-tiny.jsonl"

#: one file per task and split of the real releases (all choice gold files refbench reads)
RELEASE_FILES = {
    "winograd:wsc273": "winograd/wsc273.jsonl",
    "winograd:winogrande": "winograd/winogrande-dev.jsonl",
    "gap:test": "gap/gap-test.tsv",
    "gap:dev": "gap/gap-development.tsv",
    "knowref:test": "knowref/knowref_test.json",
    "knowref:dev": "knowref/dev.tsv",
    "altentities:books-test": "altentities/books/test.json.gz",
    "altentities:books-dev": "altentities/books/dev.json.gz",
    "kitmus:2ents": "kitmus-official/released/background-train/subtask_2_ents/full-text/"
                    "test.v4_gold_conll.gz",
    "kitmus:3ents": "kitmus-official/released/background-both/subtask_3_ents/full-text/"
                    "test.jsonlines.gz",
    "winogender:all": "winogender/all_sentences.tsv",
    "winobias:pro-test": "winobias/pro_stereotyped_type1.txt.test",
    "winobias:pro-dev": "winobias/pro_stereotyped_type1.txt.dev",
}
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"{DATA} not present")


def _code(*args: str | Path) -> tuple[int, str]:
    import contextlib
    import io

    from refbench.cli import app
    from refbench.core.commands import run_guarded

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = run_guarded(app, [str(a) for a in args])
    return code, err.getvalue()


def _answers(task: str, gold: Path, out: Path, n: int = 30) -> Path:
    """Answers JSONL made from the gold itself: the first ``n`` instances, answer 0."""
    from refbench.tasks.lookup import get_task

    instances = get_task(task).gold_instances(gold)[:n]
    out.write_text("".join(json.dumps({"id": i.id, "answer": 0}) + "\n" for i in instances),
                   encoding="utf-8")
    return out


def _gap_fixture() -> Path:
    found = sorted((ROOT / "tests" / "fixtures" / "gap").glob("*.tsv"))
    assert found, "the GAP fixture"
    return found[0]


def test_gap_answers_against_wsc_are_refused_by_the_command_and_python(tmp_path: Path
                                                                         ) -> None:
    import refbench

    pred = _answers("gap", _gap_fixture(), tmp_path / "gap.jsonl")
    code, err = _code("evaluate", "--task", "winograd", "--gold", WSC_TINY, "--pred", pred)
    assert code == 2, err
    line = err.strip().splitlines()[-1]
    assert "do not belong to the gold" in line and "at least half must" in line
    with pytest.raises(refbench.RefbenchError, match="do not belong to the gold"):
        refbench.evaluate(pred, WSC_TINY, task="winograd")
    # its own gold still scores
    own = _answers("winograd", WSC_TINY, tmp_path / "wsc.jsonl")
    assert _code("evaluate", "--task", "winograd", "--gold", WSC_TINY, "--pred", own)[0] == 0


def test_a_partial_run_of_the_same_data_is_not_refused(tmp_path: Path) -> None:
    """Fewer predictions than gold instances is a partial run (counted), not other data."""
    import refbench
    from refbench.core.errors import RefbenchWarning

    pred = _answers("winograd", WSC_TINY, tmp_path / "few.jsonl", n=1)
    with pytest.warns(RefbenchWarning, match="have no prediction"):  # the command's WARNING
        result = refbench.evaluate(pred, WSC_TINY, task="winograd")
    assert result.coverage.of == 3


@needs_data
def test_the_run_s_own_record_names_its_data_and_the_matching_split(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch
                                                                    ) -> None:
    import refbench

    monkeypatch.setenv("REFBENCH_DATA_DIR", str(DATA))
    run = tmp_path / "gap-test"
    refbench.run("first", "gap:test", limit=20, out=run, store=None, progress=False)
    code, err = _code("evaluate", "--task", "gap", "--gold", "gap:dev", "--pred", run)
    assert code == 2
    assert "the run recorded its data as gap:test" in err
    assert "these predictions match gap:test" in err
    with pytest.raises(refbench.RefbenchError, match="these predictions match gap:test"):
        refbench.evaluate(run, "gap:dev")
    # and against its own split it scores (a traceback on main: the scorecard of a partial run)
    code, err = _code("evaluate", "--task", "gap", "--gold", "gap:test", "--pred", run)
    assert code == 0, err


@needs_data
def test_same_ids_other_text_is_refused_by_content(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """KnowRef's dev and train TSVs number their instances alike (knowref-tsv:0, ...): a dev
    run scored against train matched every id and scored 0.450 on main."""
    import refbench

    monkeypatch.setenv("REFBENCH_DATA_DIR", str(DATA))
    run = tmp_path / "knowref-dev"
    refbench.run("first", "knowref:dev", limit=20, out=run, store=None, progress=False)
    with pytest.raises(refbench.RefbenchError, match="have the gold's text"):
        refbench.evaluate(run, "knowref:train")
    assert refbench.evaluate(run, "knowref:dev").figures["accuracy"] is not None


def _pairs() -> list[tuple[str, str]]:
    names = list(RELEASE_FILES)
    return [(a, b) for a in names for b in names if a != b]


@needs_data
@pytest.mark.parametrize(("source", "gold"), _pairs())
def test_every_release_s_predictions_are_refused_against_every_other_gold(
        source: str, gold: str, tmp_path: Path) -> None:
    """The property: predictions of task A (or of another split of A) scored against the
    gold of B are refused, in Python; in the command too (one line, exit code 2)."""
    from refbench.core.errors import RefbenchError
    from refbench.tasks.lookup import get_task
    from refbench.tasks.scoring import evaluate_predictions

    task_a, task_b = source.split(":")[0], gold.split(":")[0]
    pred = _answers(task_a, DATA / RELEASE_FILES[source], tmp_path / "pred.jsonl")
    gold_path = DATA / RELEASE_FILES[gold]
    with pytest.raises(RefbenchError):
        evaluate_predictions(get_task(task_b), gold_path, [pred], bootstrap=0)
    names = list(RELEASE_FILES)
    # the command on a share of the pairs, and on every pair of one task's splits
    if (names.index(source) + names.index(gold)) % 4 == 0 or task_a == task_b:
        code, err = _code("evaluate", "--task", task_b, "--gold", gold_path, "--pred", pred,
                          "--bootstrap", "0")
        assert code == 2 and len(err.strip().splitlines()) == 1, err


@needs_data
def test_tne_refuses_choice_predictions(tmp_path: Path) -> None:
    pred = _answers("gap", DATA / RELEASE_FILES["gap:test"], tmp_path / "pred.jsonl")
    code, err = _code("evaluate", "--task", "tne", "--gold", DATA / "tne" / "dev.jsonl.gz",
                      "--pred", pred)
    assert code == 2, err
