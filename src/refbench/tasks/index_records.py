"""What the web app's index keeps of each instance, built by the tasks (no Flask here).

A record has the instance id, the gold answer, the task's facet values, a one-line preview,
the text searched by the full-text index, and a *payload*: everything the instance page draws,
as plain JSON (texts and character spans, never markup). The pages are rendered from payloads
alone, so opening an instance never re-reads a data file. A task's
:meth:`refbench.tasks.capabilities.WebView.records` yields these; the web layer stores and shows
them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from refbench.core.types import ChoiceInstance

PREVIEW_CHARS = 220


@dataclass(frozen=True)
class Problem:
    """An instance its reader rejected; the rest of the file is still shown, and the dataset
    page lists what was left out and why (the reader's own message)."""

    message: str


@dataclass
class Record:
    iid: str
    gold: int | None
    gold_label: str
    facets: dict[str, str]
    title: str
    body: str
    payload: dict[str, Any]
    # Named texts searched on their own as well (the task's ``text_fields``): each is an FTS
    # column of its own; a search over "all the text" reads ``body`` and every field, so text
    # in a field need not be repeated in ``body``.
    fields: dict[str, str] = field(default_factory=dict)


def preview(text: str) -> str:
    """One line of at most ``PREVIEW_CHARS`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[:PREVIEW_CHARS - 1] + "…"


def plain(meta: dict[str, Any]) -> dict[str, Any]:
    """The scalar metadata of an instance (what a payload may carry)."""
    return {k: v for k, v in meta.items() if isinstance(v, str | int | float | bool)}


def facet_strings(values: dict[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in values.items() if v is not None}


def choice_payload(inst: ChoiceInstance) -> dict[str, Any]:
    """The payload of the shared choice instance page (``instance_choice.html``)."""
    marks: list[list[Any]] = []
    for k, cand in enumerate(inst.candidates):
        marks.extend([a, b, "mention", k] for a, b in cand.char_spans)
    if inst.expression_offset is not None:
        a = inst.expression_offset
        marks.append([a, a + len(inst.expression), "pronoun", None])
    return {"view": "choice", "id": inst.id, "task": inst.task, "text": inst.context,
            "expression": inst.expression, "marks": sorted(marks, key=lambda x: (x[0], x[1])),
            "candidates": [{"text": c.text, "description": c.description}
                           for c in inst.candidates],
            "gold": inst.gold, "meta": plain(inst.metadata)}


def choice_record(inst: ChoiceInstance, facets: dict[str, Any]) -> Record:
    """The record of one choice instance with the given facet values."""
    names = " ".join(c.text for c in inst.candidates)
    return Record(iid=inst.id, gold=inst.gold,
                  gold_label=inst.candidates[inst.gold].text if inst.gold is not None else "",
                  facets=facet_strings(facets), title=preview(inst.context),
                  body=f"{inst.context} {inst.expression} {names}", payload=choice_payload(inst))
