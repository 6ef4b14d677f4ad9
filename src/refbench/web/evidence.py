"""The evidence a cross-encoder run read for an instance whose candidates are described by
free text (AltEntities): the description sentences its selector found closest to the
expression, located in the description as the run read it.

Nothing is re-implemented: the instance is read again by its task with the run's reader options
(or, for a run that recorded none, the task's :meth:`~refbench.tasks.capabilities.WebView.
evidence_reading`), and the sentences come from the cross-encoder's own selector with the run's
``evidence_words``. Selection runs MiniLM, so the page loads it as a fragment after the
instance itself.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from refbench.core.types import ChoiceInstance
from refbench.tasks.base import Task
from refbench.tasks.capabilities import PLAIN
from refbench.web.runs import RunInfo


def reading_of(task: Task, run: RunInfo) -> dict[str, Any]:
    """How the run read its data: the reader options it recorded; for runs that recorded
    none, what the task says such runs read and the trained model's reader options."""
    reading: dict[str, Any] = (task.web or PLAIN).evidence_reading(run.metrics)
    recorded = run.metrics.get("reader_options")
    _, _, arg = run.model.partition(":")
    cfg = Path(arg) / "config.json" if arg else None
    if isinstance(recorded, dict):
        reading.update(recorded)
    elif cfg is not None and cfg.is_file():
        reading.update(json.loads(cfg.read_text()).get("reader") or {})
    config = (run.metrics.get("provenance") or {}).get("model_config") or {}
    reading["evidence_words"] = config.get("evidence_words")
    return reading


@lru_cache(maxsize=4)
def _instances(task: Task, path: str, reading: tuple[tuple[str, Any], ...]
               ) -> dict[str, ChoiceInstance]:
    return {i.id: i for i in task.read_choices(Path(path), options=dict(reading))}


def select(inst: ChoiceInstance, k: int, budget: int) -> tuple[str, float]:
    """The selected evidence text of candidate ``k`` and its best cosine."""
    from refbench.models.cross_encoder import SELECTOR

    return SELECTOR.get(inst, k, budget)


def evidence_for(task: Task, data: Path, iid: str, run: RunInfo) -> dict[str, Any]:
    from refbench.models.cross_encoder import DEFAULT_EVIDENCE_WORDS, described
    from refbench.models.text import description_sentences

    reading = reading_of(task, run)
    budget = int(reading.get("evidence_words") or DEFAULT_EVIDENCE_WORDS)
    options = tuple(sorted((k, v) for k, v in reading.items() if k != "evidence_words"))
    inst = _instances(task, str(data), options).get(iid)
    if inst is None:
        return {"reading": reading, "error": "the instance is not in the data as this run "
                                             "read it"}
    if not described(inst):
        return {"reading": reading, "error": "the candidates have no descriptions in this "
                                             "reading; the model read their names only"}
    cands = []
    for k, cand in enumerate(inst.candidates):
        text, cosine = select(inst, k, budget)
        desc = cand.description or ""
        chosen = [s for s in description_sentences(desc)
                  if " ".join(s.split()[:budget]) in text]
        cands.append({"k": k, "name": cand.text, "description": desc, "chosen": chosen,
                      "cosine": cosine})
    return {"reading": {**reading, "evidence_words": budget}, "candidates": cands}
