"""Each selected system's answer on a choice instance page (the page's own data comes from the
task's web view: :meth:`~refbench.tasks.capabilities.WebView.context`, built with
:mod:`refbench.tasks.page`).
Templates only lay this out; nothing here produces markup."""

from __future__ import annotations

from typing import Any

from refbench.tasks.page import highlight_sentences
from refbench.web.runs import System

__all__ = ["highlight_sentences", "system_answers"]


def system_answers(payload: dict[str, Any], systems: list[System],
                   outputs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each selected system's answer on a choice instance, with its scores and explanation."""
    names = [c["text"] for c in payload["candidates"]]
    rows = []
    for s in systems:
        out = outputs.get(s.sid)
        if out is None:
            rows.append({"system": s, "missing": True})
            continue
        answer = out.get("answer")
        scores = out.get("scores") or []
        rows.append({
            "system": s, "missing": False, "answer": answer,
            "answer_text": names[answer] if isinstance(answer, int) and 0 <= answer < len(names)
            else None,
            "correct": out.get("correct"),
            "scores": [{"candidate": names[k] if k < len(names) else str(k), "score": v,
                        "cand": k, "chosen": k == answer} for k, v in enumerate(scores)],
            "explanation": list(out.get("explanation") or []),
            "strategy": (out.get("extra") or {}).get("strategy"),
        })
    return rows
