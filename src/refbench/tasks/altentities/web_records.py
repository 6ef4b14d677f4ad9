"""AltEntities questions as the web index's records: each candidate's infobox, the description
raters were shown and the unshown background, side by side."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.types import ChoiceInstance
from refbench.tasks.index_records import Record, choice_record, plain, preview


def altentities_facets(inst: ChoiceInstance) -> dict[str, Any]:
    m = inst.metadata
    return {"domain": m.get("domain"), "sampling_method": m.get("sampling_method"),
            "description_section": m.get("description_section") or "(none)"}


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
        rec = choice_record(inst, altentities_facets(inst))
        rec.payload = {"view": "altentities", "id": inst.id, "question": inst.context,
                       "expression": inst.expression, "candidates": cands, "gold": inst.gold,
                       "meta": plain(inst.metadata)}
        rec.title = preview(f"{inst.expression} — {inst.context}")
        yield rec
