"""Scores of a documents task's prediction files on a dataset (TNE), through the task
(:meth:`refbench.tasks.capabilities.Documents.score`), as ``refbench evaluate`` gives them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from refbench.web.datasets import Dataset
from refbench.web.runs import RunInfo


def document_run_metrics(ds: Dataset, run: RunInfo) -> dict[str, Any]:
    """Scores on all the dataset's documents (documents without predictions count as
    predicting nothing, and are counted); ``{"error": ...}`` when the file does not fit."""
    from refbench.web.index import signature

    if ds.task.documents is None:
        return {"error": f"{ds.label} is not a dataset of documents"}
    return ds.task.documents.score(ds.files, Path(run.predictions), stamp=signature(ds))
