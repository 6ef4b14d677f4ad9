"""The *commands* capability: a task's own command-line commands (``refbench <task> ...``).

One convention for every task: the task's folder has ``commands.py`` with a function
``commands(services)`` that builds and returns its Click commands (normally one group named
after the task); the task names it here as ``"module:function"``, so importing the task never
imports Click, and the ``refbench`` command adds what :meth:`Commands.build` returns.

A task's commands sit in its folder, below the runner, the store and the report layer, so what
they need of those comes in as ``services`` (:class:`CommandServices`, implemented by the
command line), never by importing them.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol


class CommandServices(Protocol):
    """What the upper layers lend a task's commands."""

    def run_metrics(self, paths: Sequence[Path]) -> list[tuple[Path, dict[str, Any]]]:
        """(folder, metrics) of every run folder in ``paths`` (a folder run's each file)."""
        ...

    def stored_metrics(self, store: Path | None, task: str) -> list[dict[str, Any]]:
        """The metrics of every run of ``task`` in the results store (default store: None)."""
        ...

    def record_run(self, metrics: dict[str, Any], out: Path, *, store: Path | None,
                   no_store: bool = False) -> dict[str, Any]:
        """Write a finished run's ``metrics.json`` in ``out`` and record it in the results
        store (not with ``no_store``), as ``refbench run`` does; the metrics as written, with
        ``run_id`` and ``store`` once recorded. The store line goes to stderr."""
        ...

    def render_table(self, header: list[str], rows: list[list[str]], fmt: str, *,
                     title: str = "") -> str:
        """A table in one of ``report``'s formats (md, latex, html, csv)."""
        ...


class Commands:
    def __init__(self, target: str) -> None:
        self.target = target

    def build(self, services: CommandServices) -> list[Any]:
        """The task's Click commands (imported on call)."""
        module, _, attr = self.target.partition(":")
        made = getattr(importlib.import_module(module), attr)(services)
        return list(made) if isinstance(made, list | tuple) else [made]
