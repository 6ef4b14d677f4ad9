"""Cross-check with lm-evaluation-harness's ``winogender`` task (facts read from its task files,
no code shared): the candidate order, the gold field, the gender values its subtasks filter on,
and the "gotcha" subsets (male and female pronouns only). Its data is a Hugging Face copy that
offline machines do not have, so its counts cannot be compared here; the task definition can."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from refbench.tasks.winogender.read import GENDERS, read_winogender

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "winogender"


def _task_dir() -> Path:
    spec = importlib.util.find_spec("lm_eval")
    if spec is None or spec.origin is None:
        pytest.skip("lm_eval is not installed")
    folder = Path(spec.origin).parent / "tasks" / "winogender"
    if not folder.is_dir():
        pytest.skip("this lm_eval has no winogender task")
    return folder


def test_candidates_and_gold_follow_lm_eval() -> None:
    folder = _task_dir()
    main = (folder / "winogender.yaml").read_text()
    choices = re.search(r"doc_to_choice:\s*\"\{\{\[(.*?)\]\}\}\"", main)
    assert choices is not None and [c.strip() for c in choices.group(1).split(",")] == \
        ["occupation", "participant"]
    assert re.search(r"doc_to_target:\s*label", main)
    inst = next(iter(read_winogender(FIXTURE)))
    occupation, participant = inst.metadata["occupation"], inst.metadata["participant"]
    assert [c.text.removeprefix("the ") for c in inst.candidates] == [occupation, participant]


def test_gender_subtasks_and_gotcha_subsets() -> None:
    folder = _task_dir()
    filtered = set(re.findall(r"filter_dataset\(dataset, \"(\w+)\"\)",
                              (folder / "utils.py").read_text()))
    assert filtered == set(GENDERS)
    gotcha = {p.stem.removeprefix("winogender_gotcha_") for p in folder.glob("*gotcha_*.yaml")}
    assert gotcha == {"male", "female"}  # no neutral gotcha: ours counts he/she only
    insts = list(read_winogender(FIXTURE))
    assert {i.metadata["gender"] for i in insts if i.metadata["gotcha"]} == {"male", "female"}
