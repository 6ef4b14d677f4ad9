"""KITMUS gold as coreference clusters mapped to choices: a coreference system's output
(e2e-coref jsonlines, CoNLL, GAP TSV or answers) runs as the ``coref-output`` model, the
candidate sharing a predicted cluster with the pronoun being its answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from refbench.tasks.capabilities import CorefGold


class KitmusCoref(CorefGold):
    def gold(self, path: Path) -> dict[str, Any]:
        from refbench.tasks.kitmus.score.gold import read_gold

        return {g.doc_id: g for g in read_gold(path)}

    def output(self, path: Path) -> Any:
        from refbench.tasks.kitmus.score.predictions import read_predictions

        return read_predictions(path)

    def linked(self, gold: Any, iid: str, output: Any) -> set[int]:
        from refbench.tasks.kitmus.score.gold import instance_key
        from refbench.tasks.kitmus.score.predictions import linked_candidates

        pred = output.items.get(instance_key(iid))
        return linked_candidates(gold, pred) if pred is not None else set()
