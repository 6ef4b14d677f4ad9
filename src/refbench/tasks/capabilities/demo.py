"""The *demo* capability: a page of the web app where a visitor types a text and sees what a
model of the task makes of it (TNE: NPs and their preposition links).

The web app mounts it at ``/<route>``, renders ``template`` (from the task's templates) with
:meth:`Demo.context`, and ``refbench serve`` takes the model folder through the option
``--<model_option>``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

Enricher = Callable[[str], dict[str, Any]]


class Demo:
    route: str = ""
    title: str = ""
    template: str = ""
    model_option: str = ""
    model_help: str = ""

    def check_model(self, path: Path) -> None:
        """UsageError when ``path`` is not a model the demo can load."""

    def context(self, args: Mapping[str, str], *, model: Path | None,
                enricher: Enricher | None) -> dict[str, Any]:
        """The page's template context for the request's query arguments; ``enricher``
        (text -> payload) replaces the model (tests use a small stand-in). UsageError for a
        request the demo cannot answer (shown as a bad request)."""
        raise NotImplementedError
