"""Index records: what the app keeps of each instance, read with refbench's own readers.

A record has the instance id, the gold answer, the task's slice values (facets), a one-line
preview, the text searched by the full-text index, and a *payload*: everything the instance
page draws, as plain JSON (texts and character spans, never markup). The pages are rendered from
payloads alone, so opening an instance never re-reads a data file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.types import ChoiceInstance

# The slices each task can be filtered by, in display order (name -> label).
FACETS: dict[str, tuple[tuple[str, str], ...]] = {
    "kitmus": (("split", "split"), ("variant", "variant"), ("entities", "entities"),
               ("pronoun", "pronoun class"), ("answer_position", "answer position")),
    "knowref": (("format", "source format"), ("version", "original / switched"),
                ("pronoun", "pronoun")),
    "gap": (("pronoun", "pronoun gender"),),
    "winograd": (("source", "source"),),
    "altentities": (("domain", "domain"), ("sampling_method", "sampling method"),
                    ("description_section", "description section")),
    "tne": (("source", "source"), ("labelled", "labelled")),
}
# Named parts of an instance's text that the search can be limited to (name -> label); a task
# listed here gives every record ``fields`` with exactly these names (see Record.fields).
TEXT_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "kitmus": (("task", "task text"), ("knowledge", "knowledge text")),
}
_KITMUS_SPLIT = re.compile(r"/([\w-]+):\d+$")
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
    # Named texts searched on their own as well (TEXT_FIELDS of the task): each is an FTS
    # column of its own; a search over "all the text" reads ``body`` and every field, so text
    # in a field need not be repeated in ``body``.
    fields: dict[str, str] = field(default_factory=dict)


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[:PREVIEW_CHARS - 1] + "…"


def choice_facets(inst: ChoiceInstance) -> dict[str, str]:
    m = inst.metadata
    if inst.task == "kitmus":
        split = m.get("split")
        if split is None:
            found = _KITMUS_SPLIT.search(inst.id)
            split = found.group(1) if found else None
        values = {"split": split, "variant": m.get("variant"), "entities": m.get("n_entities"),
                  "pronoun": m.get("pronoun"), "answer_position": m.get("answer_position")}
    elif inst.task == "knowref":
        values = {"format": m.get("format"), "pronoun": m.get("pronoun"),
                  "version": "switched" if inst.id.endswith(":switched") else "original"}
    elif inst.task == "altentities":
        values = {"domain": m.get("domain"), "sampling_method": m.get("sampling_method"),
                  "description_section": m.get("description_section") or "(none)"}
    else:
        values = {key: m.get(key) for key, _ in FACETS.get(inst.task, ())}
    return {k: str(v) for k, v in values.items() if v is not None}


def choice_payload(inst: ChoiceInstance) -> dict[str, Any]:
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
            "gold": inst.gold, "meta": _plain(inst.metadata)}


def _plain(meta: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in meta.items() if isinstance(v, str | int | float | bool)}


def choice_record(inst: ChoiceInstance) -> Record:
    names = " ".join(c.text for c in inst.candidates)
    return Record(iid=inst.id, gold=inst.gold,
                  gold_label=inst.candidates[inst.gold].text if inst.gold is not None else "",
                  facets=choice_facets(inst), title=_preview(inst.context),
                  body=f"{inst.context} {inst.expression} {names}", payload=choice_payload(inst))


def choice_records(path: Path, task: str) -> Iterator[Record]:
    from refbench.tasks.choices import read_choices

    for inst in read_choices(path, task=task):
        yield choice_record(inst)


def altentities_records(path: Path) -> Iterator[Record]:
    """AltEntities, with each candidate's infobox, the description raters were shown (books and
    recipes; the reader refuses it for songs) and the unshown background side by side, uncut."""
    from refbench.tasks.altentities.read import read_altentities

    uncut = 10**9
    infobox = list(read_altentities(path, input_type="infobox", max_words=uncut))
    shown: dict[str, ChoiceInstance] = {}
    try:
        for inst in read_altentities(path, input_type="oracle", max_words=uncut):
            shown[inst.id] = inst
    except UsageError:
        pass  # a SONGS question: raters saw no description, so there is none to show
    main = read_altentities(path, input_type="unshown_background", max_words=uncut)
    for inst, box in zip(main, infobox, strict=True):
        oracle = shown.get(inst.id)
        cands = [{"text": c.text, "infobox": b.description, "background": c.description,
                  "description": oracle.candidates[k].description if oracle else None}
                 for k, (c, b) in enumerate(zip(inst.candidates, box.candidates, strict=True))]
        rec = choice_record(inst)
        rec.payload = {"view": "altentities", "id": inst.id, "question": inst.context,
                       "expression": inst.expression, "candidates": cands, "gold": inst.gold,
                       "meta": _plain(inst.metadata)}
        rec.title = _preview(f"{inst.expression} — {inst.context}")
        yield rec


def tne_records(path: Path) -> Iterator[Record]:
    from refbench.tasks.tne.metrics import explicit_pairs
    from refbench.tasks.tne.read import read_tne

    for doc in read_tne(path):
        relations = None
        if doc.relations is not None:
            relations = [[a, c, sorted(p)] for (a, c), p in sorted(doc.relations.items())]
        payload = {"view": "tne", "id": doc.id, "text": doc.text,
                   "nps": [[n.id, n.first_char, n.last_char, n.text] for n in doc.nps],
                   "relations": relations, "clusters": [list(c) for c in doc.clusters],
                   "explicit": sorted(explicit_pairs(doc)), "source": doc.source,
                   "meta": _plain(doc.metadata)}
        title_end = doc.title_end
        yield Record(iid=doc.id, gold=None, gold_label="",
                     facets={"source": doc.source,
                             "labelled": "yes" if doc.relations is not None else "no"},
                     title=_preview(doc.text[:title_end] + " — " + doc.text[title_end:]),
                     body=doc.text, payload=payload)


def file_records(kind: str, task: str, path: Path) -> Iterator[Record | Problem]:
    """The records of one data file of a dataset (see refbench.web.datasets.KINDS). KITMUS
    files are read instance by instance, so one instance the reader rejects becomes a
    :class:`Problem` instead of hiding the whole file."""
    from refbench.web import records_kitmus

    if kind in ("kitmus-suite", "kitmus-native", "kitmus-conll"):
        name = path.name.removesuffix(".gz")
        if name.endswith(".jsonl"):
            return records_kitmus.native_records(path)
        return records_kitmus.conll_records(path)
    if kind == "altentities":
        return altentities_records(path)
    if kind == "tne":
        return tne_records(path)
    return choice_records(path, task)
