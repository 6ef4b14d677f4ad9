"""KITMUS through the :class:`~refbench.tasks.base.Task` interface: four formats, its own scorer
(antecedent P/R/F1, pronoun accuracy, decisions), suite folders that ``run``, ``evaluate`` and
``serve`` take whole, the paper's table and figure, its own web records and page."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, Task
from refbench.tasks.hf_parts import HfFolder
from refbench.tasks.index_records import Problem, Record
from refbench.tasks.kitmus.datasheet import KITMUS_BIBTEX
from refbench.tasks.kitmus.instance import CONLL_SUFFIXES as _CONLL

_RUN_KEYS = ("pronoun_accuracy", "antecedent_f1", "antecedent_precision", "antecedent_recall",
             "task_specific_accuracy", "decisions", "ci95", "random_baseline", "variant",
             "n_entities")


class KitmusTask(Task):
    name = "kitmus"
    title = "KITMUS"
    summary = "KITMUS: antecedent P/R/F1, pronoun accuracy, decisions, slices, intervals"
    pretty_name = "KITMUS (refbench suite)"
    licence = "mit"
    citation = ("Arodi, Pömsl, Suleman, Trischler, Olteanu and Cheung. The KITMUS Test: "
                "Evaluating Knowledge Integration from Multiple Sources. ACL 2023.")
    bibtex = KITMUS_BIBTEX
    source = "refbench kitmus generate"
    annotations_creators = ("machine-generated",)
    sniff_order = 50
    slice_keys = ("pronoun", "answer_position", "n_entities", "variant")
    headline_metrics = ("pronoun_accuracy", "antecedent_f1", "antecedent_precision",
                        "antecedent_recall", "task_specific_accuracy")
    text_fields = (("task", "task text"), ("knowledge", "knowledge text"))
    facets = (("split", "split"), ("variant", "variant"), ("entities", "entities"),
              ("pronoun", "pronoun class"), ("answer_position", "answer position"))
    instance_template = "instance_kitmus.html"
    compare_matrix = ("variant", "entities")
    leaderboard_columns = (("pronoun_accuracy", "pronoun accuracy"),
                           ("antecedent_f1", "antecedent F1"), ("accuracy", "choice accuracy"))
    study_kinds = (("kitmus-validation", "refbench.studies.kitmus:KitmusValidation"),)
    directory_result_file = "suite-results.json"
    cluster_gold = True
    knowledge_first = True
    directory_caption = "pronoun accuracy per subtask: variant, then number of entities"

    # -- formats ---------------------------------------------------------------------------

    def sniff(self, head: FileHead) -> bool:
        if head.name.endswith((*_CONLL, ".jsonlines")):
            return True
        if head.name.endswith(".tsv"):
            return "Pronoun" in head.tsv_columns() and "kitmus/" in head.second
        if head.name.endswith(".jsonl"):
            return "entities" in head.json and "sentences" in head.json
        return False

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        from refbench.tasks.kitmus.choice import read_kitmus_choices

        return read_kitmus_choices(path, on_invalid=on_invalid)

    # -- runner ----------------------------------------------------------------------------

    def run_metrics(self, data: Path, predictions: Path, instances: Sequence[ChoiceInstance],
                    answers: Sequence[int | None], *, skip_invalid: bool = False
                    ) -> dict[str, Any]:
        from refbench.tasks.kitmus.evaluate import evaluate_files

        r = evaluate_files(data, [predictions], bootstrap=1000, seed=0,
                           on_invalid=InvalidInstances() if skip_invalid else None)
        return {k: r[k] for k in _RUN_KEYS}

    def is_run_directory(self, path: Path) -> bool:
        from refbench.tasks.kitmus.instance import SUBTASK_DIR

        return path.is_dir() and any(p.is_dir() and SUBTASK_DIR.match(p.name)
                                     for p in path.glob("*/subtask_*_ents"))

    def run_facets(self, data: Path, root: Path) -> dict[str, str]:
        """``<variant>/subtask_<n>_ents/<split>.jsonl`` under the suite folder: that variant,
        that number of entities and that split (the facets ``kitmus_facets`` gives records)."""
        from refbench.tasks.files import split_from_name
        from refbench.tasks.kitmus.instance import SUBTASK_DIR

        try:
            parts = data.resolve().relative_to(root.resolve()).parts
        except ValueError:
            return {}
        found: dict[str, str] = {}
        for k, part in enumerate(parts[:-1]):
            match = SUBTASK_DIR.match(part)
            if match:
                found["entities"] = match.group(1)
                if k > 0:
                    found["variant"] = parts[k - 1]
        split = split_from_name(data)
        if found and split:
            found["split"] = split
        return found

    def run_directory(self, path: Path, *, split: str
                      ) -> list[tuple[Path, str, dict[str, Any]]]:
        from refbench.tasks.kitmus.suite_eval import find_gold

        return [(gold, f"{variant}/subtask_{n}_ents/{split}",
                 {"variant": variant, "n_entities": n})
                for (variant, n), gold in find_gold(path, split).items()]

    def directory_result(self, path: Path, runs: Sequence[tuple[dict[str, Any], dict[str, Any]]],
                         *, split: str, model: str, system: str) -> dict[str, Any]:
        cells = []
        random_row = {}
        for labels, m in runs:
            variant, n = labels["variant"], labels["n_entities"]
            cells.append({"system": system, "variant": variant, "n_entities": n,
                          "pronoun_accuracy": m["pronoun_accuracy"],
                          "antecedent_f1": m["antecedent_f1"],
                          "antecedent_precision": m["antecedent_precision"],
                          "antecedent_recall": m["antecedent_recall"],
                          "task_specific_accuracy": m["task_specific_accuracy"],
                          "ci95": {k: m["ci95"][k] for k in ("pronoun_accuracy",
                                                             "antecedent_f1", "resamples",
                                                             "seed")},
                          "n": m["n"], "n_runs": 1, "n_cached": m["n_cached"],
                          "gold": m["data"], "predictions": m["predictions"],
                          "run_id": m.get("run_id")})
            random_row[f"{variant}|{n}"] = m["random_baseline"]["pronoun_accuracy"]
        return {"task": self.name, "mode": "suite", "split": split, "gold": str(path),
                "data": str(path), "model": model, "systems": [system], "cells": cells,
                "random_baseline": random_row}

    def directory_run_text(self, result: dict[str, Any]) -> str:
        from refbench.tasks.kitmus.text import suite_run_text

        return suite_run_text(result)

    def directory_cell(self, metrics: dict[str, Any]) -> tuple[str, int]:
        return str(metrics.get("variant")), int(metrics.get("n_entities") or 0)

    # -- evaluate --------------------------------------------------------------------------

    def evaluate_directory(self, gold: Path, preds: Sequence[Path], *,
                           systems: Sequence[str] = (), split: str = "test",
                           bootstrap: int = 1000, seed: int = 0,
                           on_invalid: InvalidInstances | None = None,
                           allow_missing: bool = False) -> dict[str, Any]:
        from refbench.tasks.kitmus.suite_eval import evaluate_suite

        return evaluate_suite(gold, list(preds), names=list(systems), split=split,
                              bootstrap=bootstrap, seed=seed, on_invalid=on_invalid,
                              allow_missing=allow_missing)

    def evaluate(self, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
                 split: str = "test", bootstrap: int = 1000, seed: int = 0,
                 reader_options: dict[str, Any] | None = None,
                 on_invalid: InvalidInstances | None = None, **options: Any) -> dict[str, Any]:
        from refbench.tasks.answers import prediction_file, system_name
        from refbench.tasks.kitmus.evaluate import evaluate_files

        return evaluate_files(gold, [prediction_file(p) for p in preds], bootstrap=bootstrap,
                              seed=seed, system=system_name(preds[0], *systems[:1]),
                              on_invalid=on_invalid)

    # -- report ----------------------------------------------------------------------------

    def report_tables(self, results: Sequence[dict[str, Any]], *, metric: str | None = None,
                      ci: bool = False) -> list[Any] | None:
        from refbench.tasks.kitmus.report import report_tables

        return list(report_tables(results, metric=metric, ci=ci))

    def plot(self, results: Sequence[dict[str, Any]], out: Path, *,
             metric: str | None = None) -> bool:
        from refbench.tasks.kitmus.plot import plot_entities
        from refbench.tasks.kitmus.report import kitmus_cells, result_split

        km_metric = metric or "pronoun_accuracy"
        cells, chance = kitmus_cells(results, km_metric)
        plot_entities(cells, chance, out, metric=km_metric, split=result_split(results))
        return True

    def result_text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        from refbench.tasks.kitmus.text import kitmus_text

        return None if result.get("mode") == "suite" else kitmus_text(result)

    def check_result(self, data: dict[str, Any], path: str | Path) -> None:
        from refbench.tasks.kitmus.report import check_result

        check_result(data, path)

    # -- export ----------------------------------------------------------------------------

    def hf_folder(self, path: Path) -> HfFolder | None:
        from refbench.tasks.kitmus.hf_folder import suite_folder

        return suite_folder(path)

    # -- web app ---------------------------------------------------------------------------

    def facet_values(self, inst: ChoiceInstance) -> dict[str, Any]:
        from refbench.tasks.kitmus.web_records import kitmus_facets

        return kitmus_facets(inst)

    def dataset_kind(self, path: Path) -> str:
        from refbench.core.inputs import format_name

        name = format_name(path)
        if path.is_dir():
            return "kitmus-suite"
        if name.endswith(".jsonl"):
            return "kitmus-native"
        if name.endswith(_CONLL):
            return "kitmus-conll"
        return "choice"

    def web_records(self, path: Path, kind: str) -> Iterator[Record | Problem]:
        from refbench.core.inputs import format_name
        from refbench.tasks.kitmus import web_records

        if kind == "choice":  # a GAP-format KITMUS file: the shared choice page
            return super().web_records(path, kind)
        if format_name(path).endswith(".jsonl"):
            return web_records.native_records(path)
        return web_records.conll_records(path)

    def directory_files(self, path: Path) -> list[Path]:
        from refbench.tasks.kitmus.instance import suite_files

        return suite_files(path)

    def directory_of(self, file: Path) -> Path | None:
        from refbench.tasks.kitmus.instance import SUBTASK_DIR

        for parent in file.resolve().parents:
            if SUBTASK_DIR.match(parent.name):
                return parent.parent.parent
        return None

    def match_key(self, iid: str) -> str:
        from refbench.tasks.kitmus.gold import instance_key

        return instance_key(iid)

    def instance_context(self, payload: dict[str, Any], *, args: Mapping[str, str],
                         outputs: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        from refbench.tasks.kitmus.page import kitmus_view

        return {"v": kitmus_view(payload)}


TASK = KitmusTask()
