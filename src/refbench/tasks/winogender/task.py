"""Winogender through the :class:`~refbench.tasks.base.Task` interface: a plain choice task
(occupation or participant) with its own figures (accuracy by pronoun gender, gender-flip
consistency, "gotcha" accuracy, the occupation correlation and its plot).

The release folder is run whole (``--data ../shared/data/winogender``): it is one data file,
``all_sentences.tsv``, read with ``templates.tsv`` and ``occupations-stats.tsv`` beside it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, Task
from refbench.tasks.capabilities import Commands, WebView
from refbench.tasks.headline import Headline
from refbench.tasks.winogender.folder import WinogenderExport, WinogenderFolder
from refbench.tasks.winogender.text import WinogenderReport

# Flat result keys (what tables, the leaderboard and the store show), from the nested figures.
FLAT = (("accuracy_male", ("by_gender", "male", "accuracy")),
        ("accuracy_female", ("by_gender", "female", "accuracy")),
        ("accuracy_neutral", ("by_gender", "neutral", "accuracy")),
        ("flip_rate", ("flip", "flip_rate")),
        ("gotcha_accuracy", ("gotcha", "gotcha", "accuracy")),
        ("not_gotcha_accuracy", ("gotcha", "not_gotcha", "accuracy")),
        ("pearson_r", ("occupations", "pearson_r_bls")))


def _dig(obj: Any, keys: Sequence[str]) -> Any:
    for k in keys:
        obj = obj.get(k) if isinstance(obj, dict) else None
    return obj


# The count each flat figure is a rate of (its interval's n), beside the figure.
COUNTS = {"accuracy_male": ("by_gender", "male", "n"),
          "accuracy_female": ("by_gender", "female", "n"),
          "accuracy_neutral": ("by_gender", "neutral", "n"),
          "flip_rate": ("flip", "n_groups"), "gotcha_accuracy": ("gotcha", "gotcha", "n"),
          "not_gotcha_accuracy": ("gotcha", "not_gotcha", "n"),
          "pearson_r": ("occupations", "n_occupations")}


def figures(instances: Sequence[ChoiceInstance], answers: Sequence[int | None]
            ) -> dict[str, Any]:
    """The Winogender figures, nested under ``winogender`` and flattened for tables, with a
    95% interval each (``ci95``: Wilson for rates over their groups, Fisher's z for r; the
    method of each is in ``ci95_methods``)."""
    from refbench.metrics.intervals import pearson_interval, wilson_of
    from refbench.tasks.winogender.metrics import winogender_metrics

    m = winogender_metrics(instances, answers)
    flat = {k: _dig(m, path) for k, path in FLAT}
    ci: dict[str, Any] = {}
    methods: dict[str, str] = {}
    for key, path in COUNTS.items():
        n = _dig(m, path)
        if flat.get(key) is None or not isinstance(n, int):
            continue
        got = pearson_interval(flat[key], n) if key == "pearson_r" else wilson_of(flat[key], n)
        if got is not None:
            ci[key] = list(got)
            methods[key] = "fisher-z" if key == "pearson_r" else "wilson"
    return {"winogender": m, **flat, "ci95": ci, "ci95_methods": methods}


class WinogenderTask(Task):
    name = "winogender"
    slice_keys = ("gender", "answer", "someone")
    headline_metrics = ("accuracy", "accuracy_male", "accuracy_female", "accuracy_neutral",
                        "flip_rate", "gotcha_accuracy", "pearson_r")
    headline = (Headline("accuracy", "Accuracy", chance=True),
                Headline("gotcha_accuracy", "Gotcha",
                         n_at=("winogender", *COUNTS["gotcha_accuracy"])))
    folder = WinogenderFolder()
    web = WebView(
        facets=(("gender", "pronoun gender"), ("answer", "answer"),
                ("occupation", "occupation"), ("participant", "participant"),
                ("gotcha", "gotcha")),
        leaderboard_columns=(("accuracy", "accuracy"), ("accuracy_female", "female"),
                             ("accuracy_male", "male"), ("accuracy_neutral", "neutral"),
                             ("flip_rate", "flip rate"), ("gotcha_accuracy", "gotcha")))
    report = WinogenderReport()
    export = WinogenderExport()
    commands = Commands("refbench.tasks.winogender.commands:commands")

    def sniff(self, head: FileHead) -> bool:
        return head.name.endswith(".tsv") and head.tsv_columns() == ["sentid", "sentence"]

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        from refbench.tasks.winogender.read import read_winogender

        return read_winogender(path, on_invalid=on_invalid)

    def infer_split(self, path: Path) -> str | None:
        return "test"  # released as one evaluation set

    def run_metrics(self, data: Path, predictions: Path, instances: Sequence[ChoiceInstance],
                    answers: Sequence[int | None], *, skip_invalid: bool = False
                    ) -> dict[str, Any]:
        return figures(instances, answers)

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None, **options: Any) -> dict[str, Any]:
        from refbench.tasks.answers import one_prediction, prediction_file, read_choice_answers

        # the release folder's run --out is scored as its all_sentences/ subfolder
        pred = self.folder.prediction_for(self, gold, one_prediction(preds, self.name))
        instances = self.gold_instances(gold, reader_options, on_invalid)
        read = read_choice_answers(pred, instances)
        result = self.choice_metrics(instances, read.answers, bootstrap=bootstrap, seed=seed)
        mine = figures(instances, read.answers)
        result["ci95"] = {**result.get("ci95", {}), **mine.pop("ci95")}
        result.update(mine)
        result.update({"n_missing": read.n_missing, "n_extra": read.n_extra,
                       "warnings": read.warnings, "pred": str(prediction_file(pred))})
        return result


TASK = WinogenderTask()
