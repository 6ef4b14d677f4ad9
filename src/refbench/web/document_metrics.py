"""Scores of a documents task's prediction files on a dataset (TNE), through the task
(:meth:`refbench.tasks.base.Task.score_documents`), as ``refbench evaluate`` gives them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from refbench.tasks.base import get_task
from refbench.web.datasets import Dataset
from refbench.web.runs import RunInfo


def document_run_metrics(ds: Dataset, run: RunInfo) -> dict[str, Any]:
    """Scores on all the dataset's documents (documents without predictions count as
    predicting nothing, and are counted); ``{"error": ...}`` when the file does not fit."""
    from refbench.web.index import signature

    return get_task(ds.task).score_documents(ds.files, Path(run.predictions),
                                             stamp=signature(ds))
