"""``embedding``: cosine similarity of MiniLM sentence embeddings between the expression (with
its sentence, for pronouns) and each candidate's text (the paper's USE baseline, on the weights
available here)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from refbench.core.options import Option
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, argmax
from refbench.models.text import candidate_evidence, marked_expression_sentence
from refbench.nlp.encoder import SentenceEncoder, minilm_path


class EmbeddingModel(ChoiceModel):
    name = "embedding"
    OPTIONS = (Option("max_length", int, 256, "word pieces per text", min=1),)

    def __init__(self, argument: str | None = None, **options: Any) -> None:
        super().__init__(argument, **options)
        self.encoder = SentenceEncoder(max_length=int(self.option("max_length")))

    def config(self) -> dict[str, Any]:
        return {**super().config(), "weights": str(minilm_path().name)}

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        queries = [marked_expression_sentence(i) if i.expression_offset is not None
                   else i.expression for i in batch]
        options = [[candidate_evidence(i, k) for k in range(len(i.candidates))] for i in batch]
        # A text's embedding depends (in the last float digits) on the batch it was padded in:
        # encoding each batch afresh makes scores depend on this batch alone, so a resumed run
        # is byte-identical to an uninterrupted one (see runs.runner).
        self.encoder.clear()
        self.encoder.encode([*queries, *(o for opts in options for o in opts)])
        out = []
        for q, opts in zip(queries, options, strict=True):
            scores = tuple(self.encoder.similarity(q, opts))
            out.append(ModelOutput(argmax(scores), scores))
        return out
