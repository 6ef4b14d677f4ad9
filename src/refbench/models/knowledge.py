"""``knowledge-match``: a transparent knowledge-integration resolver.

1. The expression's sentence describes a situation.
2. Each candidate's own sentence gives its occupation ("Telles is a firefighter": the phrase
   after the last "a"/"an"; otherwise its content words).
3. Sentences mentioning no candidate but naming an occupation are background knowledge; each is
   matched to the expression's sentence by lexical overlap, words weighted by rarity among the
   background sentences (works for fictional words, which embeddings cannot know).
4. The best-matching occupation leads to its entity. Without background knowledge in the text
   (background-pretrain), MiniLM similarity between the situation and "a <occupation>" decides.

Every prediction carries the chain of facts it used. Only the context, the expression and the
candidates are read; never the gold answer or generator metadata.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, argmax
from refbench.models.text import (
    content_words,
    entity_sentences,
    expression_sentence,
    key_phrase,
    mentions,
    unattached_sentences,
    words,
)


class KnowledgeMatchModel(ChoiceModel):
    name = "knowledge-match"

    def __init__(self, argument: str | None = None, **options: Any) -> None:
        super().__init__(argument, **options)
        self._encoder: Any = None

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        """Each instance decided by the text where it can be; the rest by MiniLM, their texts
        embedded together in one pass over the batch (one forward pass per instance made the
        whole suite take an hour here)."""
        if self._encoder is not None:
            self._encoder.clear()  # scores depend on this batch alone (see runs.runner)
        decided = [self._one(inst) for inst in batch]
        pending = [d for d in decided if isinstance(d, _Pending)]
        if pending:
            if self._encoder is None:
                from refbench.nlp.encoder import SentenceEncoder

                self._encoder = SentenceEncoder()
            self._encoder.encode([t for p in pending for t in (p.query, *p.options)])
        return [self._embedded(d) if isinstance(d, _Pending) else d for d in decided]

    def _embedded(self, p: _Pending) -> ModelOutput:
        assert self._encoder is not None
        sims = self._encoder.similarity(p.query, p.options)
        best = argmax(sims)
        chain = list(p.chain)
        if best is not None:
            chain += [f"no background knowledge in the text; {p.options[best]!r} is closest "
                      "to the situation in MiniLM space"]
            if p.own[best]:
                chain.append(f"entity knowledge: {p.own[best][0].strip()!r}")
        return ModelOutput(best, tuple(sims), tuple(chain), {"strategy": p.strategy})

    def _one(self, inst: ChoiceInstance) -> ModelOutput | _Pending:
        a, b = expression_sentence(inst)
        situation_sentence = inst.context[a:b]
        situation = set(words(situation_sentence)) - {inst.expression.lower()}
        own = entity_sentences(inst)
        occupations: list[str | None] = []
        for k, cand in enumerate(inst.candidates):
            occ = None
            for sent in own[k]:
                occ = key_phrase(sent, cand.text) or occ
            occupations.append(occ)
        chain = [f"the expression {inst.expression!r} is in: {situation_sentence.strip()!r}"]
        background = {k: [s for s in unattached_sentences(inst)
                          if occ and mentions(s.lower(), occ.lower())]
                      for k, occ in enumerate(occupations)}
        all_bk = sorted({s for ss in background.values() for s in ss})
        if all_bk:
            df: dict[str, int] = {}
            for s in all_bk:
                for w in set(words(s)):
                    df[w] = df.get(w, 0) + 1
            scores = []
            overlaps = []
            for k, occ in enumerate(occupations):
                occ_words = set(words(occ or ""))
                bk_words = set().union(*(set(words(s)) for s in background[k])) - occ_words \
                    if background[k] else set()
                shared = sorted(w for w in bk_words & situation if df.get(w, 0) < len(all_bk))
                overlaps.append(shared)
                scores.append(sum(1.0 / df[w] for w in shared))
            if max(scores) > 0:
                best = argmax(scores)
                assert best is not None
                chain += [f"background: {background[best][0].strip()!r} shares "
                          f"{', '.join(overlaps[best])} with it",
                          f"entity knowledge: {own[best][0].strip()!r}"]
                return ModelOutput(best, tuple(scores), tuple(chain),
                                   {"strategy": "background-overlap"})
        # No usable background knowledge in the text: what the encoder knows decides.
        if any(occupations):
            options = [f"a {occ}" if occ else inst.candidates[k].text
                       for k, occ in enumerate(occupations)]
            strategy = "occupation-embedding"
        else:
            options = [" ".join(own[k]) or inst.candidates[k].text
                       for k in range(len(inst.candidates))]
            strategy = "candidate-embedding"
        query = " ".join(sorted(content_words(situation_sentence) - {inst.expression.lower()}))
        return _Pending(query or situation_sentence, options, chain, own, strategy)


@dataclass(frozen=True)
class _Pending:
    """An instance the text does not decide: what MiniLM compares, and the chain so far."""

    query: str
    options: list[str]
    chain: list[str]
    own: list[list[str]]
    strategy: str
