"""The *folder* capability: a folder of data that ``run``, ``evaluate``, ``serve`` and the
exports take whole (a KITMUS suite; the Winogender and WinoBias release folders).

A folder run writes one run folder per data file (``OUT/<subfolder>/``) and a combined result
(``OUT/<result_file>``); ``evaluate --gold FOLDER --pred OUT`` reads it back; the web app
indexes every data file of the folder once and lays its runs out in the leaderboard's cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from refbench.core.invalid import InvalidInstances
from refbench.tasks.capabilities.core import TaskCore


class FolderFile(NamedTuple):
    """One data file of a folder run: the gold file, the run's subfolder for it, and the labels
    its result carries in the combined table (KITMUS: variant and number of entities)."""

    gold: Path
    subfolder: str
    labels: dict[str, Any]


class FolderRuns:
    """Subclass it in the task's folder and set the task's ``folder`` attribute to an instance.

    ``result_file``: the combined result a folder run writes; ``caption``: the leaderboard's
    caption over :meth:`cell` columns; ``limit_refused``: why ``run --limit`` cannot run on the
    folder (its table needs the task's own scorer, which scores whole files), or None: the
    first N instances of each file."""

    result_file: str = "results.json"
    caption: str = "accuracy per data file"
    limit_refused: str | None = None

    def is_folder(self, path: Path) -> bool:
        """True when ``path`` is a folder of this task's data taken whole."""
        raise NotImplementedError

    def files(self, path: Path, *, split: str) -> list[FolderFile]:
        """The data files of a folder run of ``split``, in the combined table's order."""
        raise NotImplementedError

    def every_file(self, path: Path) -> list[Path]:
        """Every data file of the folder (all splits), once each: what the web app indexes."""
        raise NotImplementedError

    def folder_of(self, file: Path) -> Path | None:
        """The folder a data file lies in, if it is one of this task's folders (a run on one
        subtask file of a suite is shown with the suite)."""
        return None

    def combine(self, path: Path, runs: Sequence[tuple[dict[str, Any], dict[str, Any]]], *,
                split: str, model: str, system: str) -> dict[str, Any]:
        """The folder run's result from its (labels, run metrics) pairs."""
        raise NotImplementedError

    def run_text(self, result: dict[str, Any]) -> str:
        """What ``refbench run`` prints under a folder run's table."""
        ids = result.get("run_ids") or []
        n = len(result.get("cells", []))
        cov = result.get("data_coverage")
        partial = (f"partial: {cov['n']} of {cov['of']} instances ({cov.get('by')}); the "
                   "figures are over the instances covered. ") if isinstance(cov, dict) else ""
        return (f"{partial}{n} run{'' if n == 1 else 's'}, {result['n_cached']} predictions from "
                f"the cache; predictions under {result['out_dir']}; result: "
                f"{result['out_dir']}/{self.result_file}"
                + (f"; runs {', '.join(map(str, ids))}" if ids else "") + ".")

    def cell(self, metrics: dict[str, Any]) -> tuple[str, int]:
        """The leaderboard cell of one run on a file of the folder: (group, column)."""
        return str(metrics.get("data")), 0

    def column_label(self, column: int) -> str:
        """A leaderboard column's heading (KITMUS: the number of entities)."""
        return str(column)

    def group_summary(self, values: dict[int, float]) -> list[tuple[str, float | None]]:
        """Columns the leaderboard adds after each group's, from the group's values by
        column (WinoBias: Diff, ``|Pro - Anti|``); with no values, their labels."""
        return []

    def evaluate(self, task: TaskCore, gold: Path, preds: Sequence[Path], *,
                 systems: Sequence[str] = (), split: str = "test", bootstrap: int = 1000,
                 seed: int = 0, on_invalid: InvalidInstances | None = None,
                 allow_missing: bool = False) -> dict[str, Any]:
        """``evaluate --gold FOLDER``: the complete result, returned as is."""
        raise NotImplementedError

    def run_facets(self, data: Path, root: Path) -> dict[str, str]:
        """The facet filter that selects, within the folder at ``root``, the instances of a run
        on the file ``data`` (the run page's browse link opens that file's part)."""
        return {}

    def prediction_for(self, task: TaskCore, gold: Path, pred: Path) -> Path:
        """``pred``, or, when ``pred`` is the ``--out`` of a folder run and ``gold`` one of the
        folder's files, the subfolder the run wrote for it."""
        if not pred.is_dir() or (pred / "predictions.jsonl").is_file():
            return pred
        folder = self.folder_of(gold)
        if folder is None or not self.is_folder(folder):
            return pred
        split = task.infer_split(gold) or "test"
        for file, sub, _ in self.files(folder, split=split):
            if file.resolve() == gold.resolve() and (pred / sub).is_dir():
                return pred / sub
        return pred
