"""LLM prompt templates as task data: the files, the prompts they make, the fingerprints, and
``refbench run --model-arg template=all``."""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError, UsageError
from refbench.models.base import build_model
from refbench.models.llm import scoring_requests
from refbench.models.llm_templates import question_requests, read_templates, task_templates
from refbench.tasks.choices import read_choices
from tests.conftest import cli_ok
from tests.models.conftest import DATA


def test_every_choice_task_with_templates_declares_three() -> None:
    for task in ("kitmus", "knowref", "winograd"):
        found = task_templates(task)
        assert list(found) == ["substitution", "question", "options"], task
        assert found["substitution"].form == "substitution"
    assert list(task_templates("gap")) == ["substitution"]  # no file: the default only


def test_question_prompts_fill_the_slots_and_nothing_else() -> None:
    inst = next(iter(read_choices(DATA["winograd"])))
    got = question_requests(inst, task_templates("winograd")["options"])
    prompt = ("The piano would not go through the narrow door because the _ was too wide.\n"
              'Question: Which fills the blank: "piano" or "door"?\nAnswer:')
    assert got == [(prompt, " piano"), (prompt, " door")]
    kit = next(iter(read_choices(DATA["kitmus-native"])))
    (marked, _), *_ = question_requests(kit, task_templates("kitmus")["options"])
    assert marked.count("[") == 2  # the pronoun in the text, and in the question
    assert marked.endswith(f'Who does [{kit.expression}] refer to: "{kit.candidates[0].text}", '
                           f'"{kit.candidates[1].text}" or "{kit.candidates[2].text}"?\nAnswer:')


def test_a_bad_template_file_is_one_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "llm_templates.json"
    item = {"name": "q", "form": "question", "prompt": "{context} {__class__}",
            "answer": " {candidate}"}
    path.write_text(json.dumps({"format": "refbench.llm-templates.v1", "templates": [item]}))
    with pytest.raises(RefbenchError, match=r"unknown slot \{__class__\}"):
        read_templates(path)
    path.write_text(json.dumps({"format": "other"}))
    with pytest.raises(RefbenchError, match="format"):
        read_templates(path)


def test_templates_score_and_key_the_cache(tiny_lm: Path) -> None:
    insts = [inst for name in ("kitmus-native", "winograd", "knowref-json")
             for inst in islice(read_choices(DATA[name]), 2)]
    spec = f"llm-loglik:{tiny_lm}"
    plain = build_model(spec, {})
    default = build_model(spec, {"template": "substitution"})
    question = build_model(spec, {"template": "question"})
    # the default template keeps the fingerprint made before templates existed
    assert plain.fingerprint() == default.fingerprint() != question.fingerprint()
    assert default.predict(insts) == plain.predict(insts)
    assert [plain.requests(i) for i in insts] == [scoring_requests(i) for i in insts]
    asked = question.predict(insts)
    assert len(asked) == len(insts) and all(len(o.scores) == len(i.candidates)
                                           for o, i in zip(asked, insts, strict=True))
    with pytest.raises(UsageError, match="no LLM template 'nope'"):
        build_model(spec, {"template": "nope"}).predict(insts[:1])


def test_run_over_all_templates_records_one_run_each(
        tiny_lm: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs"
    cli_ok(capsys, "run", "--model", f"llm-loglik:{tiny_lm}", "--data", DATA["winograd"],
           "--model-arg", "template=all", "--out", out, "--json", "--quiet")
    systems = {}
    for name in ("substitution", "question", "options"):
        metrics = json.loads((out / name / "metrics.json").read_text())
        systems[name] = (metrics["system"], metrics["model_fingerprint"])
    assert systems["question"][0].endswith("[template=question]")
    assert len({fp for _, fp in systems.values()}) == 3
