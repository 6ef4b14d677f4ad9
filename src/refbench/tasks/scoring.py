"""``refbench evaluate`` for every registered task: gold plus predictions in, one result out.

Whatever ``refbench run`` writes is accepted (a run folder, its ``predictions.jsonl``, a whole
folder run's ``--out``), and so are each task's own prediction formats: each task scores
through its :meth:`~refbench.tasks.base.Task.evaluate`, or, for a folder of gold, its folder
capability's :meth:`~refbench.tasks.capabilities.FolderRuns.evaluate`. Choice tasks share one
definition of accuracy and its slices with the runner
(:meth:`~refbench.tasks.base.Task.choice_metrics`), so a run scored again here gives the same
figures. Every result names its system, data and split.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.invalid import InvalidInstances
from refbench.tasks.answers import run_metadata, system_name
from refbench.tasks.base import Task


def evaluate_predictions(task: Task, gold: str | Path, preds: Sequence[str | Path], *,
                         systems: Sequence[str] = (), split: str = "test",
                         bootstrap: int = 1000, seed: int = 0,
                         switched_pred: str | Path | None = None,
                         switched_gold: str | Path | None = None,
                         reader_options: dict[str, Any] | None = None,
                         on_invalid: InvalidInstances | None = None,
                         allow_missing: bool = False) -> dict[str, Any]:
    """Score ``preds`` against ``gold`` for ``task``. ``on_invalid`` (``--skip-invalid``):
    malformed gold instances are skipped and recorded there. ``allow_missing``: a folder may
    lack some of its files' predictions (a warning)."""
    gold = Path(gold)
    paths = [Path(p) for p in preds]
    if not paths:
        raise UsageError("give at least one prediction file (--pred)")
    if gold.is_dir() and task.folder is not None:
        return task.folder.evaluate(task, gold, paths, systems=list(systems), split=split,
                                    bootstrap=bootstrap, seed=seed, on_invalid=on_invalid,
                                    allow_missing=allow_missing)
    if len(systems) > 1:
        raise UsageError("several --system names are for several suite folders; one file "
                         "(or several runs of one system) takes one name")
    if len(paths) > 1 and not systems:
        named = {system_of(p) for p in paths} - {None}
        if len(named) > 1:
            raise UsageError(f"these predictions are of {len(named)} systems "
                             f"({', '.join(sorted(str(n) for n in named))}): runs are averaged "
                             "only as seeds of one system. Evaluate each system on its own, "
                             "or give --system NAME to average them as runs of one system")
    options: dict[str, Any] = {}
    if switched_pred is not None:
        options["switched_pred"] = switched_pred
    if switched_gold is not None:
        options["switched_gold"] = switched_gold
    result = task.evaluate(gold, paths, systems=list(systems), split=split,
                           bootstrap=bootstrap, seed=seed, reader_options=reader_options,
                           on_invalid=on_invalid, **options)
    result["task"] = task.name
    result["gold"] = result["data"] = str(gold)
    result["split"] = task.infer_split(gold)
    result.setdefault("system", system_name(paths[0], *systems[:1]))
    return result


def system_of(pred: Path) -> str | None:
    """The system a refbench run folder (or its predictions file) records, by its model spec
    and fingerprint (the name it was given beside); None for a file of unknown origin (several
    such files are taken as runs of one system, as the published KITMUS runs are)."""
    meta = run_metadata(pred)
    if not meta or not meta.get("model"):
        return None
    name = str(meta.get("system") or meta["model"])
    return f"{name} ({meta.get('model_fingerprint', '?')})" if name == meta["model"] \
        else name
