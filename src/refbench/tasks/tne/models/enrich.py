"""Enrich raw text: chunk it into base NPs, build a TNE document, predict the relations."""

from __future__ import annotations

from typing import Any

from refbench.tasks.tne.models.chunker import chunks_of
from refbench.tasks.tne.models.model import TneModel
from refbench.tasks.tne.read import NounPhrase, NPDocument


def enrich_text(text: str, model: TneModel, nlp: Any) -> tuple[list[dict[str, Any]],
                                                                list[dict[str, str]]]:
    doc = nlp(text)
    chunks = chunks_of(doc)
    nps = [NounPhrase(f"np{k}", c.text, c.first_char, c.last_char, c.first_token, c.last_token)
           for k, c in enumerate(chunks)]
    tne_doc = NPDocument("text", text, [t.text for t in doc], nps, None)
    relations: dict[tuple[str, str], str] = {}
    if len(nps) > 1:
        relations, _ = model.predict([tne_doc])[0]
    texts = {n.id: n.text for n in nps}
    return ([{"id": n.id, "text": n.text, "first_char": n.first_char, "last_char": n.last_char}
             for n in nps],
            [{"anchor": a, "complement": c, "preposition": p, "complement_text": texts[c]}
             for (a, c), p in sorted(relations.items())])
