"""``coref-output:PATH``: an external coreference system's output (e2e jsonlines, CoNLL, GAP TSV
or answers) used as a choice model, on the data of a task whose gold is read as coreference
clusters (its coref capability: KITMUS). The candidate linked to the pronoun is the answer;
several or no linked candidates give no answer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, file_fingerprint
from refbench.tasks.base import Task
from refbench.tasks.capabilities import CorefGold


class CorefOutputModel(ChoiceModel):
    name = "coref-output"

    def __init__(self, argument: str | None = None, **options: Any) -> None:
        super().__init__(argument, **options)
        if not argument:
            raise UsageError("coref-output needs the system's output: --model coref-output:PATH")
        self.path = Path(argument)
        self.coref: CorefGold | None = None
        self.output: Any = None
        self.gold: dict[str, Any] = {}

    def config(self) -> dict[str, Any]:
        return {"name": self.name, "output": file_fingerprint(str(self.argument))}

    def prepare(self, data_path: str | Path | None, task: Task) -> None:
        if task.coref is None or data_path is None:
            raise UsageError("coref-output runs on gold read as coreference clusters (KITMUS "
                             "CoNLL, native JSONL or GAP)")
        if self.coref is not task.coref:
            self.coref, self.output = task.coref, task.coref.output(self.path)
        self.gold = task.coref.gold(Path(data_path))

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        out = []
        for inst in batch:
            gold = self.gold.get(inst.id)
            if gold is None:
                raise RefbenchError("instance not found in the prepared gold", item=inst.id)
            assert self.coref is not None
            linked = self.coref.linked(gold, inst.id, self.output)
            scores = tuple(1.0 if k in linked else 0.0 for k in range(len(inst.candidates)))
            answer = next(iter(linked)) if len(linked) == 1 else None
            out.append(ModelOutput(answer, scores, extra={"linked": sorted(linked)}))
        return out
