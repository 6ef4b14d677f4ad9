"""AltEntities through the :class:`~refbench.tasks.base.Task` interface: a choice task between
entities described by free text (reader options choose which text), with its own web page,
commands and expression-collection study."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.core.options import Option
from refbench.core.types import ChoiceInstance
from refbench.tasks.altentities.read import DEFAULT_MAX_WORDS, INPUT_TYPES
from refbench.tasks.altentities.web import AltEntitiesWebView
from refbench.tasks.base import FileHead, Task
from refbench.tasks.capabilities import Commands, Studies


class AltEntitiesTask(Task):
    name = "altentities"
    slice_keys = ("domain", "sampling_method", "input_type")
    headline_metrics = ("accuracy",)
    web = AltEntitiesWebView()
    commands = Commands("refbench.tasks.altentities.commands:commands")
    studies = Studies(altentities_collection="refbench.tasks.altentities.study:"
                                             "AltEntitiesCollection")
    # The reader's options; --input and --max-words are this task's own flags for them.
    READER_OPTIONS = (
        Option("input_type", str, "unshown_background", "the text shown of each candidate "
               "(the paper's input types)", choices=INPUT_TYPES, flags=("--input",)),
        Option("max_words", int, DEFAULT_MAX_WORDS, "cut each candidate's text to this many "
               "words", min=1, flags=("--max-words",)),
    )

    def sniff(self, head: FileHead) -> bool:
        return head.name.endswith(".json") and head.first.lstrip().startswith("[") \
            and '"choices"' in head.text

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        from refbench.tasks.altentities.read import read_altentities

        return read_altentities(path, **dict(options or {}), on_invalid=on_invalid)

    def choice_extras(self, instances: Sequence[ChoiceInstance]) -> dict[str, Any]:
        return {"truncated_instances": sum(int(i.metadata.get("truncated", 0)) > 0
                                           for i in instances)}


TASK = AltEntitiesTask()
