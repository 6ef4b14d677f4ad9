"""The KITMUS instance page's data: knowledge and task texts as sentence lists with their roles,
mentions marked, candidates coloured."""

from __future__ import annotations

from typing import Any

from refbench.tasks.page import page_candidates, payload_spans, segment

ROLE_LABELS = {"entity_knowledge": "entity-specific knowledge",
               "background_knowledge": "background knowledge", "meet": "meeting",
               "noise": "noise", "pronoun": "pronoun sentence"}


def kitmus_view(payload: dict[str, Any]) -> dict[str, Any]:
    text, spans = payload["text"], payload_spans(payload)
    panels = []
    for part, title in (("knowledge", "Knowledge text"), ("task", "Task text")):
        sentences = [{"role": s["role"], "role_label": ROLE_LABELS.get(s["role"], s["role"]),
                      "segments": segment(text, spans, start=s["start"], end=s["end"])}
                     for s in payload["sentences"] if s["part"] == part]
        panels.append({"part": part, "title": title, "sentences": sentences})
    return {"panels": panels, "candidates": page_candidates(payload)}
