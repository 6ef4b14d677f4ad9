"""A KITMUS suite folder, taken whole by ``run``, ``evaluate``, ``serve`` and ``export hf``:
``SUITE/<variant>/subtask_<n>_ents/<split>.jsonl`` (and the views' files), one run folder per
subtask, combined into the paper's variant x entities table (``suite-results.json``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.tasks.capabilities import FolderFile, FolderRuns, HfExport, TaskCore
from refbench.tasks.hf_parts import HfFolder


class KitmusSuite(FolderRuns):
    result_file = "suite-results.json"
    caption = "pronoun accuracy per subtask: variant, then number of entities"
    limit_refused = ("its table (antecedent F1, decisions, intervals) comes from the KITMUS "
                     "scorer, which scores whole subtask files; for a first look run one "
                     "subtask file with --limit (SUITE/background-pretrain/subtask_2_ents/"
                     "test.jsonl)")

    def is_folder(self, path: Path) -> bool:
        from refbench.tasks.kitmus.instance import SUBTASK_DIR

        return path.is_dir() and any(p.is_dir() and SUBTASK_DIR.match(p.name)
                                     for p in path.glob("*/subtask_*_ents"))

    def files(self, path: Path, *, split: str) -> list[FolderFile]:
        from refbench.tasks.kitmus.score.suite_eval import find_gold

        return [FolderFile(gold, f"{variant}/subtask_{n}_ents/{split}",
                           {"variant": variant, "n_entities": n})
                for (variant, n), gold in find_gold(path, split).items()]

    def every_file(self, path: Path) -> list[Path]:
        from refbench.tasks.kitmus.instance import suite_files

        return suite_files(path)

    def folder_of(self, file: Path) -> Path | None:
        from refbench.tasks.kitmus.instance import SUBTASK_DIR

        for parent in file.resolve().parents:
            if SUBTASK_DIR.match(parent.name):
                return parent.parent.parent
        return None

    def combine(self, path: Path, runs: Sequence[tuple[dict[str, Any], dict[str, Any]]], *,
                split: str, model: str, system: str) -> dict[str, Any]:
        from refbench.tasks.kitmus.score.figure import subtask_cell, suite_figure

        cells = [subtask_cell(system, labels["variant"], labels["n_entities"], m,
                              n_cached=m["n_cached"], gold=m["data"],
                              predictions=m["predictions"], run_id=m.get("run_id"))
                 for labels, m in runs]
        chance = {f"{labels['variant']}|{labels['n_entities']}":
                  m["random_baseline"]["pronoun_accuracy"] for labels, m in runs}
        return suite_figure(cells, chance, gold=path, split=split, systems=[system],
                            model=model)

    def run_text(self, result: dict[str, Any]) -> str:
        from refbench.tasks.kitmus.present.text import suite_run_text

        return suite_run_text(result)

    def cell(self, metrics: dict[str, Any]) -> tuple[str, int]:
        return str(metrics.get("variant")), int(metrics.get("n_entities") or 0)

    def evaluate(self, task: TaskCore, gold: Path, preds: Sequence[Path], *,
                 systems: Sequence[str] = (), split: str = "test", bootstrap: int = 1000,
                 seed: int = 0, on_invalid: InvalidInstances | None = None,
                 allow_missing: bool = False) -> dict[str, Any]:
        from refbench.tasks.kitmus.score.suite_eval import evaluate_suite

        return evaluate_suite(gold, list(preds), names=list(systems), split=split,
                              bootstrap=bootstrap, seed=seed, on_invalid=on_invalid,
                              allow_missing=allow_missing)

    def run_facets(self, data: Path, root: Path) -> dict[str, str]:
        """``<variant>/subtask_<n>_ents/<split>.jsonl`` under the suite folder: that variant,
        that number of entities and that split (the facets the web records carry)."""
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


class KitmusExport(HfExport):
    def folder(self, path: Path) -> HfFolder | None:
        from refbench.tasks.kitmus.hf_folder import suite_folder

        return suite_folder(path)
