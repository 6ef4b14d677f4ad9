"""KITMUS through the :class:`~refbench.tasks.base.Task` interface: four formats, its own scorer
(antecedent P/R/F1, pronoun accuracy, decisions), suite folders that ``run``, ``evaluate``,
``serve`` and the exports take whole, the paper's table and figure, its own web page, commands,
validation study and coreference gold."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.core.options import Option
from refbench.core.result import Result
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, Task
from refbench.tasks.capabilities import Commands, Listings, Studies
from refbench.tasks.headline import HeadlineFigure
from refbench.tasks.kitmus.folder import KitmusExport, KitmusSuite
from refbench.tasks.kitmus.headline import CELL, kitmus_figures, kitmus_mean
from refbench.tasks.kitmus.instance import CONLL_SUFFIXES as _CONLL
from refbench.tasks.kitmus.present.report import KitmusReport
from refbench.tasks.kitmus.present.web import KitmusWebView
from refbench.tasks.kitmus.score.coref import KitmusCoref

_RUN_KEYS = ("pronoun_accuracy", "antecedent_f1", "antecedent_precision", "antecedent_recall",
             "task_specific_accuracy", "decisions", "ci95", "random_baseline", "variant",
             "n_entities", "kitmus_slices")
_REGISTRIES = "refbench.tasks.kitmus.registries"


class KitmusTask(Task):
    name = "kitmus"
    sniff_order = 50
    slice_keys = ("pronoun", "answer_position", "n_entities", "variant")
    headline_metrics = ("pronoun_accuracy", "antecedent_f1", "antecedent_precision",
                        "antecedent_recall", "task_specific_accuracy")
    headline = (CELL,)  # one per variant x entities cell, and their mean
    READER_OPTIONS = (Option("ablate", str, "none", "remove knowledge sentences from the "
                             "text: background, entity (the entity-specific sentences) or "
                             "both (native JSONL; the same instances, paired by compare)",
                             choices=("none", "background", "entity", "both")),)
    folder = KitmusSuite()
    web = KitmusWebView()
    report = KitmusReport()
    export = KitmusExport()
    coref = KitmusCoref()
    commands = Commands("refbench.tasks.kitmus.commands:commands")
    studies = Studies(kitmus_validation="refbench.tasks.kitmus.study:KitmusValidation")
    listings = Listings(metrics=f"{_REGISTRIES}:METRICS",
                        prediction_formats=f"{_REGISTRIES}:PREDICTION_FORMATS",
                        variants=f"{_REGISTRIES}:KITMUS_VARIANTS",
                        formats=f"{_REGISTRIES}:KITMUS_FORMATS",
                        resource_layouts=f"{_REGISTRIES}:RESOURCE_LAYOUTS")

    def headline_figures(self, results: Sequence[Result]) -> list[HeadlineFigure]:
        return kitmus_figures(results)

    def headline_summary(self, by_system: Mapping[str, Sequence[HeadlineFigure]]
                         ) -> dict[str, HeadlineFigure]:
        return kitmus_mean(by_system)

    def sniff(self, head: FileHead) -> bool:
        if head.name.endswith((*_CONLL, ".jsonlines")):
            return True
        if head.name.endswith(".tsv"):
            return {"Text", "Pronoun"} <= set(head.tsv_columns()) and "kitmus/" in head.second
        if head.name.endswith(".jsonl"):
            return "entities" in head.json and "sentences" in head.json
        return False

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        from refbench.tasks.kitmus.score.choice import read_kitmus_choices

        ablate = str((options or {}).get("ablate", "none"))
        return read_kitmus_choices(path, on_invalid=on_invalid, ablate=ablate)

    def run_metrics(self, data: Path, predictions: Path, instances: Sequence[ChoiceInstance],
                    answers: Sequence[int | None], *, skip_invalid: bool = False
                    ) -> dict[str, Any]:
        from refbench.tasks.kitmus.score.evaluate import evaluate_files

        r = evaluate_files(data, [predictions], bootstrap=1000, seed=0,
                           on_invalid=InvalidInstances() if skip_invalid else None,
                           covered_only=True)
        return {k: r[k] for k in _RUN_KEYS}

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None, **options: Any) -> dict[str, Any]:
        from refbench.tasks.answers import prediction_file, read_choice_answers, system_name
        from refbench.tasks.kitmus.score.evaluate import evaluate_files

        files = [prediction_file(p) for p in preds]
        result = evaluate_files(gold, files, bootstrap=bootstrap, seed=seed,
                                system=system_name(preds[0], *systems[:1]),
                                on_invalid=on_invalid)
        if len(files) > 1 or result.get("prediction_format") != "answers":
            return result
        # A choice system's answers (what ``run`` writes): its choice figures too, the ones
        # ``run`` records beside the scorer's, from the same definition.
        again = InvalidInstances() if on_invalid is not None else None
        instances = self.gold_instances(gold, None, again)
        read = read_choice_answers(files[0], instances)
        choice = self.choice_metrics(instances, read.answers, answers_norm=read.answers_norm,
                                     bootstrap=bootstrap, seed=seed)
        ci = {**choice.pop("ci95", {}), **result.get("ci95", {})}
        return {**choice, **result, "ci95": ci}


TASK = KitmusTask()
