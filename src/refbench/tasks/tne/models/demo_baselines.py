"""The TNE demo without a trained model: the text chunked into base NPs as TNE defines them
(:mod:`refbench.tasks.tne.models.chunker`) and linked by one of the paper's deterministic baselines
(:mod:`refbench.tasks.tne.models.baselines`), so ``refbench serve`` shows something true of the text
without ``--tne-model``. A raw text has no gold, so a link's preposition is the word just before
the complement when it is one of TNE's prepositions (surface: "the capital [of] France"), else
"of", TNE's most frequent preposition."""

from __future__ import annotations

from typing import Any

from refbench.tasks.tne.models.baselines import _PREP_WORDS, BASELINES
from refbench.tasks.tne.models.chunker import chunks_of
from refbench.tasks.tne.read import NounPhrase, NPDocument

#: The baselines that need nothing but the text (combined-coref needs gold clusters).
DEMO_BASELINES = ("surface", "surface-expand", "combined", "adj-backward", "adj-forward",
                  "title-first", "title-last")
DEFAULT_BASELINE = "surface"


def baseline_enrich(text: str, nlp: Any, name: str = DEFAULT_BASELINE
                    ) -> dict[str, list[dict[str, Any]]]:
    """NPs and links of ``text`` (the demo's enrichment format) by the baseline ``name``."""
    if name not in DEMO_BASELINES:
        raise ValueError(f"unknown demo baseline {name!r}")
    doc = nlp(text)
    tokens = [t.text for t in doc]
    nps = [NounPhrase(f"np{k}", c.text, c.first_char, c.last_char, c.first_token, c.last_token)
           for k, c in enumerate(chunks_of(doc))]
    tne_doc = NPDocument("text", text, tokens, nps, None)
    by_id = {n.id: n for n in nps}
    links = BASELINES[name](tne_doc, 0) if len(nps) > 1 else set()
    relations = []
    for a, c in sorted(links):
        before = by_id[c].first_token - 1
        word = tokens[before].lower() if before >= 0 else ""
        relations.append({"anchor": a, "complement": c,
                          "preposition": word if word in _PREP_WORDS else "of",
                          "complement_text": by_id[c].text})
    return {"nps": [{"id": n.id, "text": n.text, "first_char": n.first_char,
                     "last_char": n.last_char} for n in nps], "relations": relations}
