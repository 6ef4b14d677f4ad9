"""Models from the user's session (issue 51): a function or a ChoiceModel object run by
``refbench.run`` gives the figures and predictions of the registered model it reproduces; what
it does wrong is one error naming the instance; with ``version=`` a failed run resumes from
the predictions it kept."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from refbench.api import ChoiceInstance, ChoiceModel, ModelOutput, RefbenchError
from refbench.core.errors import UsageError
from refbench.models.heuristics import FirstModel
from refbench.models.user import UNVERSIONED, user_model
from tests.conftest import ROOT, SHARED, cli_json, needs_shared

WSC = SHARED / "data" / "winograd" / "wsc273.jsonl"
TINY = ROOT / "tests" / "fixtures" / "winograd" / "wsc-tiny.jsonl"


@pytest.fixture
def eight(tmp_path: Path) -> Path:
    """Eight Winograd instances (the tiny fixture's three, numbered, under new ids: the
    prediction cache keys instances by content)."""
    lines = [json.loads(x) for x in TINY.read_text().splitlines() if x.strip()]
    out = tmp_path / "wsc-eight.jsonl"
    out.write_text("".join(json.dumps(lines[k % len(lines)] | {
        "qID": f"q{k + 1}", "sentence": f"{k}. " + lines[k % len(lines)]["sentence"]}) + "\n"
                           for k in range(8)))
    return out


@pytest.fixture
def releases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFBENCH_DATA_DIR", str(SHARED / "data"))


FRESH = """
import json, sys, refbench
from refbench.api import ChoiceModel
from refbench.models.heuristics import FirstModel
first = FirstModel()
def first_answer(instance):
    return first.predict([instance])[0].answer
class Mine(ChoiceModel):
    def predict(self, batch):
        return [first.predict([i])[0] for i in batch]
out = {}
for key, model in (("fn", first_answer), ("obj", Mine())):
    r = refbench.run(model, "wsc273", system="first-fn", store=None, progress=False,
                     out=sys.argv[1] + "/" + key)
    out[key] = {"figures": r.figures.as_dict(), "intervals": r.intervals,
                "answers": [row["answer"] for row in r.rows], "system": r.system.model,
                "coverage": [r.coverage.n, r.coverage.of]}
print(json.dumps(out))
"""


@needs_shared(WSC)
def test_a_function_and_a_class_give_the_figures_of_the_first_model(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], releases: None) -> None:
    import os

    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-c", FRESH, str(tmp_path)], capture_output=True,
                          text=True, check=False, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.splitlines()[-1])
    cmd = cli_json(capsys, "run", "--model", "first", "--data", "wsc273", "--out",
                   tmp_path / "cli", "--json", "--no-store")
    answers = [json.loads(line)["answer"] for line in
               (tmp_path / "cli" / "predictions.jsonl").read_text().splitlines()]
    assert len(answers) == 273
    for key in ("fn", "obj"):
        assert got[key]["figures"]["accuracy"] == cmd["accuracy"] == 137 / 273
        assert got[key]["intervals"]["accuracy"] == cmd["ci95"]["accuracy"]
        assert got[key]["answers"] == answers
        assert got[key]["system"] == "first-fn"
        assert got[key]["coverage"] == [273, 273]
        metrics = json.loads((tmp_path / key / "metrics.json").read_text())
        assert metrics["accuracy"] == cmd["accuracy"]
        assert metrics["provenance"]["model_config"]["cache"] == UNVERSIONED


class Flaky:
    """``first``'s answer, except that the ``fail_at``-th call raises; counts its calls."""

    def __init__(self, fail_at: int | None) -> None:
        self.fail_at = fail_at
        self.calls = 0
        self.first = FirstModel()

    def __call__(self, instance: ChoiceInstance) -> int:
        self.calls += 1
        if self.calls == self.fail_at:
            raise ValueError("a bug in my notebook")
        answer = self.first.predict([instance])[0].answer
        assert answer is not None
        return answer


def test_a_failing_function_names_the_instance_and_a_versioned_rerun_resumes(
        tmp_path: Path, eight: Path) -> None:
    import refbench
    from refbench.tasks.choices import read_choices

    TINY = eight
    ids = [i.id for i in read_choices(TINY)]
    assert ids == [f"q{k}" for k in range(1, 9)]
    store = tmp_path / "results.sqlite"
    broken = Flaky(fail_at=5)
    with pytest.raises(RefbenchError) as err:
        refbench.run(broken, TINY, system="flaky", version="1", store=store, progress=False)
    assert err.value.item == ids[4]
    assert "raised ValueError: a bug in my notebook" in err.value.message
    fixed = Flaky(fail_at=None)
    result = refbench.run(fixed, TINY, system="flaky", version="1", store=store,
                          progress=False)
    assert isinstance(result, refbench.Result)
    assert fixed.calls == len(ids) - 4  # the 4 kept predictions came from the cache
    assert [r["answer"] for r in result.rows] == [FirstModel().predict([i])[0].answer
                                                  for i in read_choices(TINY)]
    again = Flaky(fail_at=None)
    refbench.run(again, TINY, system="flaky", version="1", store=store, progress=False)
    assert again.calls == 0  # all cached
    # without version= the cache is neither read nor written
    unversioned = Flaky(fail_at=None)
    refbench.run(unversioned, TINY, system="flaky", store=store, progress=False)
    assert unversioned.calls == len(ids)


def test_what_a_function_does_wrong_is_one_error_naming_the_instance(tmp_path: Path) -> None:
    import refbench
    from refbench.tasks.choices import read_choices

    first_id = next(iter(read_choices(TINY))).id

    def run(fn: Any, **options: Any) -> RefbenchError:
        with pytest.raises(RefbenchError) as err:
            refbench.run(fn, TINY, store=None, progress=False, **options)
        assert err.value.item == first_id or str(err.value.item).startswith("one of")
        return err.value

    assert "returned 7; expected a candidate index 0-1" in run(lambda i: 7).message
    assert "returned 3 scores; expected 2" in run(lambda i: [0.1, 0.2, 0.3]).message
    assert "returned str 'A'" in run(lambda i: "A").message
    assert "returned NoneType" in run(lambda i: None).message
    assert "[1] is str" in run(lambda i: [0.5, "x"]).message
    assert "returned 1 answers for a batch of" in run(lambda b: [0], batch=True).message

    def hangs(instance: ChoiceInstance) -> int:
        time.sleep(5)
        return 0

    assert "no answer within 0.2 s" in run(hangs, timeout=0.2).message

    class Wrong(ChoiceModel):
        def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
            return [ModelOutput(5, (0.0, 1.0)) for _ in batch]

    assert "answer 5 is not a candidate index" in run(Wrong).message
    with pytest.raises(UsageError, match="timeout"):
        user_model(lambda i: 0, timeout=-1)
    with pytest.raises(UsageError, match="expected a model spec"):
        refbench.run(42, TINY, store=None)


def test_scores_and_batches_give_the_answers_and_a_version_keys_the_cache() -> None:
    import refbench

    def scores(instance: ChoiceInstance) -> list[float]:
        return [float(k == 1) for k in range(len(instance.candidates))]

    def batched(batch: list[ChoiceInstance]) -> list[int]:
        return [1 for _ in batch]

    a = refbench.run(scores, TINY, store=None, progress=False)
    b = refbench.run(batched, TINY, store=None, progress=False, batch=True)
    assert isinstance(a, refbench.Result) and isinstance(b, refbench.Result)
    assert [r["answer"] for r in a.rows] == [r["answer"] for r in b.rows] == [1] * len(a.rows)
    assert a.system.model == "test_scores_and_batches_give_the_answers_and_a_version_keys_" \
        "the_cache.<locals>.scores"
    v1 = user_model(scores, version="1")
    assert v1.cacheable and not user_model(scores).cacheable
    assert v1.fingerprint() == user_model(scores, version="1").fingerprint()
    assert v1.fingerprint() != user_model(scores, version="2").fingerprint()
    assert user_model(FirstModel, version=1).config()["model"]["name"] == "first"


def test_a_notebook_class_graduates_to_a_plugin_unchanged(plugins_installed: None,
                                                          tmp_path: Path) -> None:
    """The plugin fixture's class, run as an object of the session and by its entry point's
    name (what ``refbench run --model always-second`` builds): the same answers, scores and
    figures; only the cache differs (a plugin's always, the session's with version=)."""
    from refbench_plugin_demo.model import AlwaysSecond  # type: ignore[import-not-found]

    import refbench

    as_object = refbench.run(AlwaysSecond(), TINY, store=None, progress=False)
    by_name = refbench.run("always-second", TINY, store=None, progress=False)
    assert isinstance(as_object, refbench.Result) and isinstance(by_name, refbench.Result)
    assert as_object.system.name == by_name.system.name == "always-second"
    assert [dict(r) for r in as_object.rows] == [dict(r) for r in by_name.rows]
    assert as_object.figures.as_dict() == by_name.figures.as_dict()
    assert not user_model(AlwaysSecond()).cacheable
    assert user_model(AlwaysSecond(), version="1").cacheable
