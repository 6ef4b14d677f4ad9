"""GAP through the :class:`~refbench.tasks.base.Task` interface: a choice task whose own scorer
(the official gap_scorer figures) runs beside accuracy."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, Task
from refbench.tasks.capabilities import Listings
from refbench.tasks.gap.web import GapReport, GapWebView
from refbench.tasks.headline import Headline


class GapTask(Task):
    name = "gap"
    slice_keys = ("pronoun",)
    headline_metrics = ("accuracy", "f1", "precision", "recall", "f1_masculine", "f1_feminine",
                        "bias")
    # over the examples with gold (1,773 of gap-test's 2,000); no closed form: a bootstrap
    headline = (Headline("f1", "F1", "bootstrap"), Headline("bias", "Bias (F/M)", "bootstrap"))
    sniff_order = 60  # after KITMUS, whose GAP-format files say "kitmus/" in their ids
    web = GapWebView()
    report = GapReport()
    listings = Listings(metrics="refbench.tasks.gap.registries:METRICS")

    def sniff(self, head: FileHead) -> bool:
        return head.name.endswith(".tsv") and {"Text", "Pronoun"} <= set(head.tsv_columns())

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        from refbench.tasks.gap.read import read_gap_choices

        return read_gap_choices(path, on_invalid=on_invalid)

    def run_metrics(self, data: Path, predictions: Path, instances: Sequence[ChoiceInstance],
                    answers: Sequence[int | None], *, skip_invalid: bool = False
                    ) -> dict[str, Any]:
        from refbench.tasks.gap.evaluate import gap_answer_scores

        return gap_answer_scores(data, instances, answers, pred=str(predictions),
                                 on_invalid=InvalidInstances() if skip_invalid else None)

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None, **options: Any) -> dict[str, Any]:
        from refbench.tasks.answers import one_prediction
        from refbench.tasks.gap.evaluate import evaluate_gap

        return evaluate_gap(self, gold, one_prediction(preds, self.name), bootstrap=bootstrap,
                            seed=seed, on_invalid=on_invalid)


TASK = GapTask()
