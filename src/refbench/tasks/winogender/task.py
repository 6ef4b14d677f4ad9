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
from refbench.tasks.hf_parts import HfFolder, HfPart

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


def figures(instances: Sequence[ChoiceInstance], answers: Sequence[int | None]
            ) -> dict[str, Any]:
    """The Winogender figures, nested under ``winogender`` and flattened for tables."""
    from refbench.tasks.winogender.metrics import winogender_metrics

    m = winogender_metrics(instances, answers)
    return {"winogender": m, **{k: _dig(m, path) for k, path in FLAT}}


class WinogenderTask(Task):
    name = "winogender"
    title = "Winogender"
    summary = ("Winogender schemas: occupation or participant; accuracy by pronoun gender, "
               "gender-flip consistency, gotchas, occupation correlation")
    pretty_name = "Winogender schemas"
    licence = "mit"
    citation = ("Rudinger, Naradowsky, Leonard and Van Durme. Gender Bias in Coreference "
                "Resolution. NAACL 2018.")
    bibtex = """@inproceedings{rudinger-etal-2018-gender,
    title = "Gender Bias in Coreference Resolution",
    author = "Rudinger, Rachel and Naradowsky, Jason and Leonard, Brian and Van Durme, Benjamin",
    booktitle = "Proceedings of the 2018 Conference of the North {A}merican Chapter of the Association for Computational Linguistics: Human Language Technologies, Volume 2 (Short Papers)",
    month = jun,
    year = "2018",
    address = "New Orleans, Louisiana",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/N18-2002",
    doi = "10.18653/v1/N18-2002",
    pages = "8--14",
}"""  # noqa: E501
    source = "rudinger/winogender-schemas"
    annotations_creators = ("expert-generated",)
    card_notes = ("Rows are the 720 sentences of `all_sentences.tsv` as choices between the "
                  "occupation and the other participant (`templates.tsv` gives the answer); "
                  "`metadata` holds the pronoun's gender, the occupation and the template.")
    slice_keys = ("gender", "answer", "someone")
    headline_metrics = ("accuracy", "accuracy_male", "accuracy_female", "accuracy_neutral",
                        "flip_rate", "gotcha_accuracy", "pearson_r")
    table_notes = ("flip rate: share of the 240 template x participant groups whose answer "
                   "changes with the pronoun's gender; gotcha: the answer is the occupation and "
                   "the pronoun's gender is not its majority gender (BLS); r: Pearson's r of "
                   "% women (BLS) with the share of female-pronoun sentences resolved to the "
                   "occupation",)
    facets = (("gender", "pronoun gender"), ("answer", "answer"), ("occupation", "occupation"),
              ("participant", "participant"), ("gotcha", "gotcha"))
    leaderboard_columns = (("accuracy", "accuracy"), ("accuracy_female", "female"),
                           ("accuracy_male", "male"), ("accuracy_neutral", "neutral"),
                           ("flip_rate", "flip rate"), ("gotcha_accuracy", "gotcha"))

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

    # -- the release folder, run whole -------------------------------------------------------

    def is_run_directory(self, path: Path) -> bool:
        from refbench.tasks.winogender.read import SENTENCES

        return path.is_dir() and (path / SENTENCES).is_file()

    def run_directory(self, path: Path, *, split: str
                      ) -> list[tuple[Path, str, dict[str, Any]]]:
        from refbench.tasks.winogender.read import find_release

        return [(find_release(path), "all_sentences", {})]

    def directory_result(self, path: Path, runs: Sequence[tuple[dict[str, Any], dict[str, Any]]],
                         *, split: str, model: str, system: str) -> dict[str, Any]:
        (_, m), = runs
        return {**m, "task": self.name, "mode": "release", "gold": str(path),
                "data": str(path), "model": model, "system": system, "systems": [system],
                "cells": [{"file": Path(m["data"]).name, "n": m["n"],
                           "accuracy": m["accuracy"], "predictions": m["predictions"],
                           "run_id": m.get("run_id")}]}

    def directory_files(self, path: Path) -> list[Path]:
        from refbench.tasks.winogender.read import find_release

        return [find_release(path)]

    def directory_of(self, file: Path) -> Path | None:
        from refbench.tasks.winogender.read import SENTENCES

        return file.parent if file.name == SENTENCES else None

    def hf_folder(self, path: Path) -> HfFolder | None:
        from refbench.tasks.winogender.read import find_release

        if not self.is_run_directory(path):
            return None
        return HfFolder((HfPart("default", "test", find_release(path)),))

    # -- evaluate and report -----------------------------------------------------------------

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None, **options: Any) -> dict[str, Any]:
        from refbench.tasks.answers import prediction_file, read_choice_answers
        from refbench.tasks.metrics import task_choice_metrics
        from refbench.tasks.scoring import gold_choices, one_prediction

        # the release folder's run --out is scored as its all_sentences/ subfolder
        pred = self.folder_run_prediction(gold, one_prediction(preds, self.name))
        instances = gold_choices(self, gold, reader_options, on_invalid)
        read = read_choice_answers(pred, instances)
        result = task_choice_metrics(self.name, instances, read.answers,
                                     bootstrap=bootstrap, seed=seed)
        result.update(figures(instances, read.answers))
        result.update({"n_missing": read.n_missing, "n_extra": read.n_extra,
                       "warnings": read.warnings, "pred": str(prediction_file(pred))})
        return result

    def evaluate_directory(self, gold: Path, preds: Sequence[Path], *,
                           systems: Sequence[str] = (), split: str = "test",
                           bootstrap: int = 1000, seed: int = 0,
                           on_invalid: InvalidInstances | None = None,
                           allow_missing: bool = False) -> dict[str, Any]:
        from refbench.tasks.winogender.read import find_release

        return self.evaluate(find_release(gold), preds, systems=systems, split=split,
                             bootstrap=bootstrap, seed=seed, on_invalid=on_invalid)

    def result_text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        from refbench.tasks.winogender.text import winogender_text

        return winogender_text(result) if "winogender" in result else None

    def report_tables(self, results: Sequence[dict[str, Any]], *, metric: str | None = None,
                      ci: bool = False) -> list[Any] | None:
        from refbench.tasks.winogender.text import report_table

        return [report_table(results)]

    def plot(self, results: Sequence[dict[str, Any]], out: Path, *,
             metric: str | None = None) -> bool:
        from refbench.tasks.winogender.figure import plot_occupations

        drawn = [(str(r.get("system") or r.get("model") or f"system {k + 1}"), r["winogender"])
                 for k, r in enumerate(results) if isinstance(r.get("winogender"), dict)]
        if not drawn:
            return False
        plot_occupations(drawn, out)
        return True

    def cli_group(self) -> Any | None:
        from refbench.tasks.winogender.commands import winogender_group

        return winogender_group()


TASK = WinogenderTask()
