"""AltEntities in the web app. Its questions as the web index's records: each candidate's
infobox, the description raters were shown and the unshown background, side by side."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.types import ChoiceInstance
from refbench.tasks.capabilities import TaskCore, WebView
from refbench.tasks.index_records import Problem, Record, choice_record, plain, preview


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


class AltEntitiesWebView(WebView):
    """Each question with both entities' texts side by side; the cross-encoder's selected
    evidence on demand."""

    facets = (("domain", "domain"), ("sampling_method", "sampling method"),
              ("description_section", "description section"))
    instance_template = "instance_altentities.html"
    leaderboard_columns = (("accuracy", "accuracy"),
                           ("accuracy_norm", "accuracy (length-norm.)"))
    has_evidence = True

    def facet_values(self, inst: ChoiceInstance) -> dict[str, Any]:
        return altentities_facets(inst)

    def dataset_kind(self, path: Path) -> str:
        return "altentities"

    def records(self, task: TaskCore, path: Path, kind: str) -> Iterator[Record | Problem]:
        return altentities_records(path)

    def context(self, payload: dict[str, Any], *, args: Mapping[str, str],
                outputs: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        from refbench.tasks.page import page_candidates

        return {"v": {"candidates": page_candidates(payload)}}

    def evidence_reading(self, metrics: dict[str, Any]) -> dict[str, Any]:
        """A run that recorded no reader options read the input type its slices name (the
        unshown background when they name none or several), cut at the reader's default."""
        from refbench.tasks.altentities.read import DEFAULT_MAX_WORDS

        inputs = list((metrics.get("slices") or {}).get("input_type", {}))
        return {"input_type": inputs[0] if len(inputs) == 1 else "unshown_background",
                "max_words": DEFAULT_MAX_WORDS}
