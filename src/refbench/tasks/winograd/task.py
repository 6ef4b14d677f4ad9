"""Winograd-style sets (WSC273, WinoGrande) through the :class:`~refbench.tasks.base.Task`
interface: the plain choice task, with a web view that finds WinoGrande's twins."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, Task
from refbench.tasks.winograd.web import WinogradWebView


class WinogradTask(Task):
    name = "winograd"
    sniff_order = 45  # before KITMUS and GAP, as the formats were first told apart
    slice_keys = ("source",)
    headline_metrics = ("accuracy", "accuracy_norm")
    web = WinogradWebView()

    def sniff(self, head: FileHead) -> bool:
        return head.name.endswith(".jsonl") and "option1" in head.json

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        from refbench.tasks.winograd.read import read_winograd

        return read_winograd(path, on_invalid=on_invalid)


TASK = WinogradTask()
