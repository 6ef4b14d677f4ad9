"""Winograd-style sets (WSC273, WinoGrande) through the :class:`~refbench.tasks.base.Task`
interface: the plain choice task, so almost every hook keeps its default."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, Task

_WINOGRANDE_TWIN = re.compile(r"^(.{6,})-([12])$")


class WinogradTask(Task):
    name = "winograd"
    title = "Winograd-style"
    summary = "Winograd-style JSONL (WSC273, WinoGrande): blank and two options; accuracy"
    pretty_name = "Winograd-style schemas"
    licence = "unknown"
    citation = ("Levesque, Davis and Morgenstern. The Winograd Schema Challenge. KR 2012; "
                "Sakaguchi, Le Bras, Bhagavatula and Choi. WinoGrande. AAAI 2020.")
    bibtex = """@inproceedings{levesque-etal-2012-winograd,
    title = "The {W}inograd Schema Challenge",
    author = "Levesque, Hector J. and Davis, Ernest and Morgenstern, Leora",
    booktitle = "Proceedings of the Thirteenth International Conference on Principles of
                 Knowledge Representation and Reasoning",
    year = "2012",
}
@inproceedings{sakaguchi-etal-2020-winogrande,
    title = "{W}ino{G}rande: An Adversarial {W}inograd Schema Challenge at Scale",
    author = "Sakaguchi, Keisuke and Le Bras, Ronan and Bhagavatula, Chandra and Choi, Yejin",
    booktitle = "Proceedings of AAAI",
    year = "2020",
}"""
    source = "a Winograd Schema Challenge / WinoGrande copy"
    annotations_creators = ("expert-generated",)
    card_notes = "The licence depends on the copy exported: state it before publishing."
    sniff_order = 45  # before KITMUS and GAP, as the formats were first told apart
    slice_keys = ("source",)
    headline_metrics = ("accuracy", "accuracy_norm")
    facets = (("source", "source"),)
    leaderboard_columns = (("accuracy", "accuracy"),
                           ("accuracy_norm", "accuracy (length-norm.)"))
    twin_neighbours = True

    def sniff(self, head: FileHead) -> bool:
        return head.name.endswith(".jsonl") and "option1" in head.json

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        from refbench.tasks.winograd.read import read_winograd

        return read_winograd(path, on_invalid=on_invalid)

    def twin_ids(self, iid: str) -> list[str]:
        m = _WINOGRANDE_TWIN.match(iid)
        return [f"{m.group(1)}-{'2' if m.group(2) == '1' else '1'}"] if m else []


TASK = WinogradTask()
