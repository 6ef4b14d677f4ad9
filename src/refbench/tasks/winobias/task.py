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
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, Task
from refbench.tasks.hf_parts import HfFolder, HfPart


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
    title = "WinoBias"
    summary = ("WinoBias: pro-/anti-stereotypical occupation coreference; Pro / Anti / Avg / "
               "Diff per type, MUC/B3/CEAF-e on the CoNLL files")
    pretty_name = "WinoBias"
    licence = "mit"
    citation = ("Zhao, Wang, Yatskar, Ordonez and Chang. Gender Bias in Coreference Resolution: "
                "Evaluation and Debiasing Methods. NAACL 2018.")
    bibtex = """@inproceedings{zhao-etal-2018-gender,
    title = "Gender Bias in Coreference Resolution: Evaluation and Debiasing Methods",
    author = "Zhao, Jieyu and Wang, Tianlu and Yatskar, Mark and Ordonez, Vicente and Chang, Kai-Wei",
    booktitle = "Proceedings of the 2018 Conference of the North {A}merican Chapter of the Association for Computational Linguistics: Human Language Technologies, Volume 2 (Short Papers)",
    month = jun,
    year = "2018",
    address = "New Orleans, Louisiana",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/N18-2003",
    doi = "10.18653/v1/N18-2003",
    pages = "15--20",
}"""  # noqa: E501
    source = "uclanlp/corefBias"
    annotations_creators = ("expert-generated",)
    card_notes = ("One config per type and stereotype (`type1_pro`, `type1_anti`, `type2_pro`, "
                  "`type2_anti`), split dev and test as released; rows are choices between the "
                  "sentence's two occupations, the gold one bracketed in the release.")
    slice_keys = ("stereotype", "type", "pronoun_gender")
    headline_metrics = ("accuracy", "conll_f1")
    facets = (("stereotype", "pro / anti"), ("type", "type"), ("split", "split"),
              ("pronoun_gender", "pronoun"), ("gold_occupation", "antecedent"))
    leaderboard_columns = (("accuracy", "accuracy"), ("conll_f1", "CoNLL F1"))
    directory_caption = ("accuracy per file: split and type, then 1 = pro-stereotyped, "
                         "2 = anti-stereotyped")

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

    # -- the release folder: the four files of a split ---------------------------------------

    def is_run_directory(self, path: Path) -> bool:
        return path.is_dir() and any(path.glob("pro_stereotyped_type[12].txt.*"))

    def run_directory(self, path: Path, *, split: str
                      ) -> list[tuple[Path, str, dict[str, Any]]]:
        from refbench.tasks.winobias.read import data_files, file_kind

        out = []
        for f in data_files(path, split):
            k = file_kind(f)
            out.append((f, f"type{k.type}-{k.stereotype}/{k.split}",
                        {"type": k.type, "stereotype": k.stereotype}))
        return out

    def directory_result(self, path: Path, runs: Sequence[tuple[dict[str, Any], dict[str, Any]]],
                         *, split: str, model: str, system: str) -> dict[str, Any]:
        from refbench.tasks.winobias.folder import combine

        return {"task": self.name, "mode": "release", "split": split, "gold": str(path),
                "data": str(path), "model": model, "system": system, "systems": [system],
                **combine([m for _, m in runs]),
                "cells": [{"file": Path(m["data"]).name, "n": m["n"],
                           "accuracy": m["accuracy"], "predictions": m["predictions"],
                           "run_id": m.get("run_id")} for _, m in runs]}

    def directory_cell(self, metrics: dict[str, Any]) -> tuple[str, int]:
        from refbench.tasks.winobias.read import FILE_NAME, file_kind

        data = Path(str(metrics.get("data")))
        if not FILE_NAME.match(data.name):
            return super().directory_cell(metrics)
        k = file_kind(data)
        return f"{k.split} type{k.type}", 1 if k.stereotype == "pro" else 2

    def directory_files(self, path: Path) -> list[Path]:
        from refbench.tasks.winobias.read import SPLITS, data_files

        return [f for s in SPLITS for f in data_files(path, s)]

    def directory_of(self, file: Path) -> Path | None:
        return file.parent if self.is_run_directory(file.parent) else None

    def hf_folder(self, path: Path) -> HfFolder | None:
        """One config per type and stereotype (``type1_pro``, ...), the released splits."""
        from refbench.tasks.winobias.read import SPLITS, data_files, file_kind

        if not self.is_run_directory(path):
            return None
        splits = [s for s in SPLITS if any(path.glob(f"*_stereotyped_type[12].txt.{s}"))]
        parts = [(file_kind(f), f) for s in splits for f in data_files(path, s)]
        parts.sort(key=lambda kf: (kf[0].type, kf[0].stereotype != "pro",
                                   SPLITS.index(kf[0].split)))
        return HfFolder(tuple(HfPart(f"type{k.type}_{k.stereotype}", k.split, f)
                              for k, f in parts))

    # -- evaluate and report -----------------------------------------------------------------

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None, **options: Any) -> dict[str, Any]:
        from refbench.tasks.answers import prediction_file, read_choice_answers
        from refbench.tasks.metrics import task_choice_metrics
        from refbench.tasks.scoring import gold_choices, one_prediction

        pred = one_prediction(preds, self.name)
        instances = gold_choices(self, gold, reader_options, on_invalid)
        read = read_choice_answers(pred, instances)
        result = task_choice_metrics(self.name, instances, read.answers,
                                     bootstrap=bootstrap, seed=seed)
        result.update(file_figures(gold, instances, read.answers))
        result.update({"n_missing": read.n_missing, "n_extra": read.n_extra,
                       "warnings": read.warnings, "pred": str(prediction_file(pred))})
        return result

    def evaluate_directory(self, gold: Path, preds: Sequence[Path], *,
                           systems: Sequence[str] = (), split: str = "test",
                           bootstrap: int = 1000, seed: int = 0,
                           on_invalid: InvalidInstances | None = None,
                           allow_missing: bool = False) -> dict[str, Any]:
        """A folder run's output (``refbench run --data FOLDER --out OUT``) against the
        release folder: each file's predictions from OUT's subfolder for it."""
        from refbench.tasks.answers import system_name
        from refbench.tasks.scoring import one_prediction
        from refbench.tasks.winobias.folder import combine

        out = one_prediction(preds, self.name, " (a folder run's --out)")
        runs = [self.evaluate(f, [out / sub], bootstrap=bootstrap, seed=seed,
                              on_invalid=on_invalid)
                for f, sub, _ in self.run_directory(gold, split=split)]
        name = system_name(out, *systems[:1])
        return {"task": self.name, "mode": "release", "split": split, "gold": str(gold),
                "data": str(gold), "system": name, "systems": [name], **combine(runs)}

    def result_text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        from refbench.tasks.winobias.folder import file_text, release_text

        return release_text(result) if result.get("mode") == "release" else file_text(result)

    def report_tables(self, results: Sequence[dict[str, Any]], *, metric: str | None = None,
                      ci: bool = False) -> list[Any] | None:
        from refbench.tasks.winobias.folder import report_table

        return [report_table(results)]

    def cli_group(self) -> Any | None:
        from refbench.tasks.winobias.commands import winobias_group

        return winobias_group()


TASK = WinoBiasTask()
