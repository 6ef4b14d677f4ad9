"""GAP through the :class:`~refbench.tasks.base.Task` interface: a choice task whose own scorer
(the official gap_scorer figures) runs beside accuracy."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, Task
from refbench.tasks.index_records import Problem, Record


class GapTask(Task):
    name = "gap"
    title = "GAP"
    summary = "GAP: the official gap_scorer metrics, plus singular they and neopronouns"
    pretty_name = "GAP"
    licence = "apache-2.0"
    citation = ("Webster, Recasens, Axelrod and Baldridge. Mind the GAP: A Balanced Corpus of "
                "Gendered Ambiguous Pronouns. TACL 2018.")
    bibtex = """@article{webster-etal-2018-mind,
    title = "Mind the {GAP}: A Balanced Corpus of Gendered Ambiguous Pronouns",
    author = "Webster, Kellie and Recasens, Marta and Axelrod, Vera and Baldridge, Jason",
    journal = "Transactions of the Association for Computational Linguistics",
    volume = "6",
    year = "2018",
}"""
    source = "google-research-datasets/gap-coreference"
    annotations_creators = ("crowdsourced",)
    slice_keys = ("pronoun",)
    headline_metrics = ("accuracy", "f1", "precision", "recall", "f1_masculine", "f1_feminine",
                        "bias")
    facets = (("pronoun", "pronoun gender"),)
    leaderboard_columns = (("accuracy", "accuracy"), ("f1", "F1"), ("bias", "bias (F/M)"))
    sniff_order = 60  # after KITMUS, whose GAP-format files say "kitmus/" in their ids

    def sniff(self, head: FileHead) -> bool:
        return head.name.endswith(".tsv") and "Pronoun" in head.tsv_columns()

    def web_records(self, path: Path, kind: str) -> Iterator[Record | Problem]:
        """Choice records, with GAP's answer when it is no candidate: "neither" (A-coref and
        B-coref both FALSE, about 10% of GAP) is a real gold label, so the page shows it
        (``gold_text``) instead of "no gold answer"; both TRUE reads "both A and B"."""
        from refbench.formats.gap_tsv import read_gap
        from refbench.tasks.index_records import choice_record

        flags = {row.id: (row.a_coref, row.b_coref) for row in read_gap(path)}
        for inst in self.read_choices(path):
            record = choice_record(inst, self.facet_values(inst))
            if inst.gold is None and inst.id in flags:
                text = "both A and B" if all(flags[inst.id]) else "neither"
                record.gold_label = text
                record.payload["gold_text"] = text
            yield record

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
        from refbench.tasks.gap.evaluate import evaluate_gap
        from refbench.tasks.scoring import one_prediction

        return evaluate_gap(gold, one_prediction(preds, self.name), bootstrap=bootstrap,
                            seed=seed, on_invalid=on_invalid)

    def result_text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        from refbench.tasks.gap.score import scorecard
        from refbench.tasks.result_text import choice_text

        return choice_text(result) + "\n" + scorecard(result)

    def twin_ids(self, iid: str) -> list[str]:
        return [iid]  # the same instance in another (switched) file


TASK = GapTask()
