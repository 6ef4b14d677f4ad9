"""What a task hands ``refbench export hf`` for a folder it takes whole (a KITMUS suite, the
Winogender or WinoBias release): the data files, the config and split each becomes, and what
the folder itself says about its licence and provenance. Plain data, so the task layer never
imports ``datasets`` and the export layer never names a task."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class HfPart:
    """One data file of a folder export: it becomes split ``split`` of config ``config``.
    ``native``: the file's JSON lines are the rows, copied byte for byte (KITMUS' native JSONL,
    which ``refbench run`` and ``serve`` read); otherwise the rows are the task's
    (:meth:`refbench.tasks.capabilities.HfExport.rows`, or the choice instances). ``check``:
    for native parts, the task's check of one row ``(row, file, line)`` (raising its reader's
    error), so that a row the task's reader refuses is never copied."""

    config: str
    split: str
    file: Path
    native: bool = False
    check: Callable[[dict[str, Any], Path, int], Any] | None = None


@dataclass(frozen=True)
class HfFolder:
    """A folder export: its parts (configs in order of first appearance; the first is the
    default), the licence when the folder decides it (a KITMUS suite's follows the resources it
    was drawn from; None: the task's ``licence``), and a datasheet for the card's body."""

    parts: tuple[HfPart, ...]
    licence: str | None = None
    datasheet: str | None = None
