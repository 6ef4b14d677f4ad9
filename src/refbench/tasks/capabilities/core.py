"""What a capability may ask of the task it belongs to: the core hooks, as a protocol.

A capability object never imports :mod:`refbench.tasks.base` (the core imports the
capabilities, not the other way round); where a capability's default needs the task's reader
or scorer (a folder run scored file by file, the plain web records), the layer passes the task
in, typed by this protocol, which :class:`refbench.tasks.base.Task` satisfies.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from refbench.core.invalid import InvalidInstances
from refbench.core.types import ChoiceInstance


class TaskCore(Protocol):
    """The core of a task, as its capabilities see it."""

    @property
    def name(self) -> str:
        ...

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        ...

    def infer_split(self, path: Path) -> str | None:
        ...

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None,
                 **options: Any) -> dict[str, Any]:
        ...
