"""The first line of a result's text (:func:`refbench.tasks.result_text.about`) from a typed
Result: its identity and coverage, as built once in :mod:`refbench.core.result`, give the same
words as the result mapping it was read from; a partial Result says why it is partial, for
every reason (the mapping path knows only lm-eval's ``data_coverage``)."""

from __future__ import annotations

from refbench.core.result import Result
from refbench.tasks.result_text import about, coverage_note

WHOLE = {"task": "winograd", "model": "first", "system": "mine", "n": 273,
         "data": "/data/releases/winograd/wsc273.jsonl", "split": "test", "accuracy": 0.5}
LM_EVAL = {"task": "winograd", "model": "hf-lm:gpt2", "n": 4, "data": "a/b/c/d/wsc.jsonl",
           "data_coverage": {"n": 4, "of": 6, "by": "lm-eval --limit"}}


def test_a_result_and_its_mapping_give_the_same_line() -> None:
    for d in (WHOLE, LM_EVAL):
        assert about(Result.from_json(d)) == about(d)
    assert about(WHOLE) == "mine on releases/winograd/wsc273.jsonl, test split"
    assert about(LM_EVAL) == ("hf-lm:gpt2 on c/d/wsc.jsonl (partial: 4 of 6 instances, "
                              "lm-eval --limit)")


def test_a_partial_result_says_why() -> None:
    limited = Result.from_json(WHOLE | {"n": 40, "limit": 40, "coverage_of": 273,
                                        "partial_by": ["--limit"]})
    assert coverage_note(limited) == " (partial: 40 of 273 instances, --limit)"
    assert about(limited).endswith("test split (partial: 40 of 273 instances, --limit)")
    assert coverage_note(Result.from_json(WHOLE)) == ""
