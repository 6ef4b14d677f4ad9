"""A TNE annotation's chains and stages: which NPs an annotator joined into one chain (stage 1)
and the links they gave from each NP to each chain (stage 2); shared by the study's page, its
export and its agreement."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from refbench.studyfile.db import Item

STAGE1 = {"new": "standard", "same": "standard", "time": "time/date/measurement",
          "idiom": "idiomatic"}


def chains(np_ids: Sequence[str], stage1: dict[str, dict[str, Any]]) -> dict[str, str]:
    """{NP id: its chain's first NP} over the NPs answered so far ("same as" links joined)."""
    order = {x: k for k, x in enumerate(np_ids)}
    parent: dict[str, str] = {x: x for x in np_ids if x in stage1}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for x in np_ids:
        a = stage1.get(x)
        if a and a.get("type") == "same" and a.get("same_as") in parent:
            r1, r2 = find(x), find(a["same_as"])
            if r1 != r2:
                first, second = sorted((r1, r2), key=order.__getitem__)
                parent[second] = first
    return {x: find(x) for x in parent}


def stage_answers(answers: dict[str, Any], stage: int) -> dict[str, Any]:
    prefix = f"s{stage}:"
    return {u[len(prefix):]: v for u, v in answers.items() if u.startswith(prefix)}


def is_complete(item: Item, answers: dict[str, Any]) -> bool:
    """Every NP has a stage-1 answer and a finished stage-2 answer."""
    ids = [n["id"] for n in item.payload["nps"]]
    s1, s2 = stage_answers(answers, 1), stage_answers(answers, 2)
    return all(x in s1 for x in ids) and all(s2.get(x, {}).get("done") for x in ids)


def chain_type(rep: str, stage1: dict[str, dict[str, Any]]) -> str:
    return STAGE1.get(stage1.get(rep, {}).get("type", "new"), "standard")
