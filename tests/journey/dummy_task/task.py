"""``dummyref``: a Winograd-like benchmark that exists only to prove the Task interface. Its
JSONL lines are ``{"dummy_id", "text" (with one "_"), "choices": [a, b], "label": 0 or 1}``;
everything else (metrics, report, web page) comes from the interface's defaults, plus a web
view with one facet and one template of its own. No card file: its card is built from the
class attributes (and says the licence is unknown)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refbench.core.inputs import parse_jsonl
from refbench.core.invalid import InvalidInstances
from refbench.core.records import Record, Where
from refbench.core.types import Candidate, ChoiceInstance
from refbench.tasks.base import FileHead, Task
from refbench.tasks.capabilities import WebView


def _instance(obj: Any, *, path: Path, line: int) -> ChoiceInstance:
    rec = Record(obj, Where(path, line))
    text = rec.string("text", nonempty=True)
    a, b = (str(c) for c in rec.raw("choices"))
    return ChoiceInstance(
        id=rec.string("dummy_id", nonempty=True), task="dummyref", context=text,
        expression="_", candidates=(Candidate(a), Candidate(b)), gold=rec.integer("label"),
        expression_offset=text.index("_"), metadata={"genre": rec.string("genre")})


class DummyTask(Task):
    name = "dummyref"
    title = "DummyRef"
    summary = "a throwaway Winograd-like task (tests only)"
    slice_keys = ("genre",)
    web = WebView(facets=(("genre", "genre"),), instance_template="instance_dummyref.html")

    def sniff(self, head: FileHead) -> bool:
        return head.name.endswith(".jsonl") and "dummy_id" in head.json

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        return parse_jsonl(path, lambda obj, line: _instance(obj, path=path, line=line),
                           on_invalid=on_invalid, id_key="dummy_id")


TASK = DummyTask()
