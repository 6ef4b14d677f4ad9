"""KnowRef through the :class:`~refbench.tasks.base.Task` interface: two formats (the bracketed
JSON and the substitution TSV), its own decision-based scorer, switched twins."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.core.options import Option
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, Task
from refbench.tasks.capabilities import Commands
from refbench.tasks.headline import Headline
from refbench.tasks.knowref.switch import KnowRefTraining
from refbench.tasks.knowref.web import KnowRefReport, KnowRefWebView


class KnowRefTask(Task):
    name = "knowref"
    sniff_order = 40  # before KITMUS and GAP, as the formats were first told apart
    slice_keys = ("pronoun",)
    headline_metrics = ("accuracy", "task_specific_accuracy", "consistency")
    headline = (Headline("accuracy", "Accuracy", chance=True),
                Headline("consistency", "Consistency", n_at=("switched", "n_pairs")))
    web = KnowRefWebView()
    report = KnowRefReport()
    commands = Commands("refbench.tasks.knowref.commands:commands")
    training = KnowRefTraining()
    # The scorer's options (evaluate); --switched-pred and --switched-gold are this task's own.
    SCORER_OPTIONS = (
        Option("switched_pred", Path, None, "predictions on the antecedent-switched copy "
               "(adds consistency)", flags=("--switched-pred",)),
        Option("switched_gold", Path, None, "the switched gold (default: switched on the fly)",
               flags=("--switched-gold",)),
    )

    def sniff(self, head: FileHead) -> bool:
        if head.name.endswith(".tsv"):
            cols = head.tsv_columns()
            return "sentence1" in cols and "candidate0" in cols
        return head.name.endswith(".json") and "sentence_with_pronoun" in head.text

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        from refbench.tasks.knowref.read import read_knowref

        return read_knowref(path, on_invalid=on_invalid)

    def run_warnings(self, instances: Sequence[ChoiceInstance]) -> list[str]:
        from refbench.tasks.knowref.read import absent_candidates_warning

        warning = absent_candidates_warning(instances)
        return [warning] if warning else []

    def run_metrics(self, data: Path, predictions: Path, instances: Sequence[ChoiceInstance],
                    answers: Sequence[int | None], *, skip_invalid: bool = False
                    ) -> dict[str, Any]:
        from refbench.tasks.knowref.metrics import evaluate_knowref

        r = evaluate_knowref(data, predictions,
                             on_invalid=InvalidInstances() if skip_invalid else None,
                             only={i.id for i in instances})
        return {k: r[k] for k in ("decisions", "task_specific_accuracy", "coverage")}

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None, **options: Any) -> dict[str, Any]:
        """Accuracy with slices, plus the decision breakdown; ``switched_pred`` /
        ``switched_gold`` add consistency over antecedent-switched pairs."""
        from refbench.tasks.answers import one_prediction, prediction_file
        from refbench.tasks.knowref.metrics import base_id, evaluate_knowref, read_answers

        pred = one_prediction(preds, self.name, " (plus --switched-pred)")
        switched_pred = options.get("switched_pred")
        switched_gold = options.get("switched_gold")
        file = prediction_file(pred)
        instances = self.gold_instances(gold, None, on_invalid)
        links = read_answers(file, instances)
        answers = [next(iter(s)) if len(s := links.get(base_id(i.id), set())) == 1 else None
                   for i in instances]
        result = self.choice_metrics(instances, answers, bootstrap=bootstrap, seed=seed)
        # evaluate_knowref reads the gold again: the same instances are skipped, reported once.
        again = InvalidInstances() if on_invalid is not None else None
        sp = Path(switched_pred) if switched_pred else None
        sg = Path(switched_gold) if switched_gold else None
        result.update(evaluate_knowref(gold, file, sp and prediction_file(sp), sg,
                                       on_invalid=again))
        return result


TASK = KnowRefTask()
