"""A trained model knows what it was trained on, and says so when it runs on another task.

``refbench train`` writes ``DIR/trained_on.json`` (:func:`refbench.core.trainer.
record_trained_on`: the task, the data file and its sha256, the dev file); models trained
before it recorded their tasks in ``config.json`` (cross-encoder, encoder-head) or
``refbench.json`` (llm-loglik), which are read the same way. Running such a model on data of
another task is one line (:func:`check_transfer`), refused unless the run allows transfer
(``--allow-transfer``, ``refbench.run(..., allow_transfer=True)``), when it is a note.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.trainer import TRAINED_ON

#: Files of a trained model folder that list the tasks it was trained on, newest first.
_RECORDS = (TRAINED_ON, "config.json", "refbench.json", "training.json")


@dataclass(frozen=True)
class TrainedOn:
    """The tasks a model folder was trained on, and its training data when recorded."""

    tasks: tuple[str, ...]
    data: str | None
    record: Path


def trained_on(spec: str) -> TrainedOn | None:
    """What the model ``name:FOLDER`` was trained on (None: no folder, or nothing recorded)."""
    argument = spec.partition(":")[2]
    folder = Path(argument) if argument else None
    if folder is None or not folder.is_dir():
        return None
    # the folder's own records; its parent's trained_on.json (llm-loglik:DIR/model)
    for record in (*(folder / n for n in _RECORDS), folder.parent / TRAINED_ON):
        try:
            raw: Any = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(raw, dict):
            continue
        tasks = raw.get("tasks", [raw["task"]] if isinstance(raw.get("task"), str) else [])
        if isinstance(tasks, list) and tasks and all(isinstance(t, str) for t in tasks):
            data = raw.get("data")
            return TrainedOn(tuple(tasks), data if isinstance(data, str) else None, record)
    return None


def check_transfer(spec: str, tasks: Callable[[], Sequence[Any]], *, allow: bool,
                   say: Callable[[str], None] | None = None) -> None:
    """Refuse (or, ``allow``, note through ``say``) running a trained model on data of a task
    it was not trained on: one line naming both. ``tasks`` gives the data's tasks (asked only
    for a model that recorded what it was trained on)."""
    found = trained_on(spec)
    if found is None:
        return
    other = sorted({t.name for t in tasks()} - set(found.tasks))
    if not other:
        return
    trained = ", ".join(found.tasks) + (f" ({found.data})" if found.data else "")
    line = (f"{spec} was trained on {trained}; this data is {', '.join(other)}: a transfer, "
            "not the task it learned")
    if not allow:
        raise UsageError(f"{line}; pass --allow-transfer to run it anyway")
    if say is not None:
        say(f"note: {line}")
