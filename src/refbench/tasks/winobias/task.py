"""WinoBias through the :class:`~refbench.tasks.base.Task` interface: each sentence file is a
choice task (which of the two occupations the pronoun refers to); the release folder runs whole
(the four files of a split) and prints the paper's Pro / Anti / Avg / Diff table; every run is
also scored as coreference against the CoNLL file of the same sentences when it lies in
``conll_format/`` beside them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.core.result import Result
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, Task
from refbench.tasks.capabilities import Commands, WebView
from refbench.tasks.headline import HeadlineFigure
from refbench.tasks.winobias.folder import WinoBiasExport, WinoBiasFolder, WinoBiasReport
from refbench.tasks.winobias.headline import HEADLINE as WINOBIAS_HEADLINE


def file_figures(data: Path, instances: Sequence[ChoiceInstance],
                 answers: Sequence[int | None]) -> dict[str, Any]:
    """One file's cell of the table, and its coreference scores when the CoNLL file is there."""
    from refbench.tasks.winobias.check import conll_path
    from refbench.tasks.winobias.metrics import choice_coref_scores, winobias_table
    from refbench.tasks.winobias.read import file_kind

    out: dict[str, Any] = {"winobias": winobias_table(instances, answers)}
    conll = conll_path(data.parent, file_kind(data))
    if conll.is_file():
        out["coref"] = choice_coref_scores(conll, instances, answers)
        out["conll_f1"] = out["coref"]["conll_f1"]
    return out


class WinoBiasTask(Task):
    name = "winobias"
    slice_keys = ("stereotype", "type", "pronoun_gender")
    headline_metrics = ("accuracy", "conll_f1")
    headline = WINOBIAS_HEADLINE
    folder = WinoBiasFolder()
    web = WebView(
        facets=(("stereotype", "pro / anti"), ("type", "type"), ("split", "split"),
                ("pronoun_gender", "pronoun"), ("gold_occupation", "antecedent")),
        leaderboard_columns=(("accuracy", "accuracy"), ("conll_f1", "CoNLL F1")))
    report = WinoBiasReport()
    export = WinoBiasExport()
    commands = Commands("refbench.tasks.winobias.commands:commands")

    def headline_figures(self, results: Sequence[Result]) -> list[HeadlineFigure]:
        from refbench.tasks.winobias.headline import winobias_figures

        return winobias_figures(results)

    def sniff(self, head: FileHead) -> bool:
        from refbench.tasks.winobias.read import FILE_NAME

        return FILE_NAME.match(head.name) is not None

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        from refbench.tasks.winobias.read import read_winobias

        return read_winobias(path, on_invalid=on_invalid)

    def run_metrics(self, data: Path, predictions: Path, instances: Sequence[ChoiceInstance],
                    answers: Sequence[int | None], *, skip_invalid: bool = False
                    ) -> dict[str, Any]:
        return file_figures(data, instances, answers)

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None, **options: Any) -> dict[str, Any]:
        from refbench.tasks.answers import one_prediction, prediction_file, read_choice_answers

        pred = one_prediction(preds, self.name)
        instances = self.gold_instances(gold, reader_options, on_invalid)
        read = read_choice_answers(pred, instances)
        result = self.choice_metrics(instances, read.answers, bootstrap=bootstrap, seed=seed)
        result.update(file_figures(gold, instances, read.answers))
        result.update({"n_missing": read.n_missing, "n_extra": read.n_extra,
                       "warnings": read.warnings, "pred": str(prediction_file(pred))})
        return result


TASK = WinoBiasTask()
