"""``coref-output:PATH``: an external coreference system's output (e2e jsonlines, CoNLL, GAP TSV
or answers) used as a choice model. The candidate linked to the pronoun is the answer; several
or no linked candidates give no answer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, file_fingerprint
from refbench.tasks.kitmus.gold import GoldItem, instance_key, read_gold
from refbench.tasks.kitmus.predictions import linked_candidates, read_predictions


class CorefOutputModel(ChoiceModel):
    name = "coref-output"

    def __init__(self, argument: str | None = None, **options: Any) -> None:
        super().__init__(argument, **options)
        if not argument:
            raise UsageError("coref-output needs the system's output: --model coref-output:PATH")
        self.preds = read_predictions(argument)
        self.gold: dict[str, GoldItem] = {}

    def config(self) -> dict[str, Any]:
        return {"name": self.name, "output": file_fingerprint(str(self.argument))}

    def prepare(self, data_path: str | Path | None, task: str) -> None:
        from refbench.tasks.base import get_task

        if not get_task(task).cluster_gold or data_path is None:
            raise UsageError("coref-output runs on KITMUS-style gold (CoNLL, native JSONL or GAP)")
        self.gold = {g.doc_id: g for g in read_gold(data_path)}

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        out = []
        for inst in batch:
            gold = self.gold.get(inst.id)
            if gold is None:
                raise RefbenchError("instance not found in the prepared gold", item=inst.id)
            pred = self.preds.items.get(instance_key(inst.id))
            linked = linked_candidates(gold, pred) if pred is not None else set()
            scores = tuple(1.0 if k in linked else 0.0 for k in range(len(inst.candidates)))
            answer = next(iter(linked)) if len(linked) == 1 else None
            out.append(ModelOutput(answer, scores, extra={"linked": sorted(linked)}))
        return out
