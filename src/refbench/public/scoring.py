"""What ``refbench evaluate`` computes, as a library function: predictions scored against gold
for any registered task, with the command line's options (keyword-only). ``refbench.evaluate``
and the ``evaluate`` command both score through :func:`scores`; the command prints what it
returns."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.tasks.base import Task


def scores(task: Task, gold: Path, preds: Sequence[Path], *, systems: Sequence[str] = (),
           split: str = "test", bootstrap: int = 1000, seed: int = 0,
           task_options: Mapping[str, Any] | None = None, skip_invalid: bool = False,
           allow_missing: bool = False,
           name_of: Callable[[Path], str | None] | None = None) -> dict[str, Any]:
    """The result (``metrics.json``'s mapping: figures, intervals, identities, warnings) of
    ``preds`` (run folders, ``predictions.jsonl`` files or the task's own prediction formats)
    against ``gold`` (a file, or a folder the task takes whole). ``task_options``: checked
    options of the task's reader (how the predictions' data was read) and scorer (None: the
    reader's options a run recorded);
    ``skip_invalid``: skip malformed gold instances (reported in the result and a warning)
    instead of stopping; ``allow_missing``: a folder may lack some files' predictions;
    ``name_of``: a data file's release name (``NAME:SPLIT``), for the line that refuses
    predictions made on other data."""
    from refbench.tasks.scoring import evaluate_predictions

    reader: dict[str, Any] | None = None  # none given: the run's own (recorded with it)
    scorer: dict[str, Any] | None = None
    if task_options is not None:
        readers = {o.name for o in task.READER_OPTIONS}
        reader = {k: v for k, v in task_options.items() if k in readers}
        scorer = {k: v for k, v in task_options.items() if k not in reader}
    invalid = InvalidInstances() if skip_invalid else None
    result = evaluate_predictions(task, gold, preds, systems=systems, split=split,
                                  bootstrap=bootstrap, seed=seed, reader_options=reader,
                                  scorer_options=scorer, on_invalid=invalid,
                                  allow_missing=allow_missing, name_of=name_of)
    if invalid is not None:
        result.update(invalid.report())
        if invalid:
            result.setdefault("warnings", []).append(invalid.summary())
    return result
