"""TNE scores of prediction files on a dataset, with the TNE task's own metrics
(:func:`refbench.tasks.tne.metrics.evaluate_tne`), cached while the files are unchanged."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.web.datasets import Dataset
from refbench.web.runs import RunInfo


@lru_cache(maxsize=1)
def _documents(data: tuple[str, ...], data_stamp: str) -> list[Any]:
    """A TNE dataset's documents, kept (one dataset at a time, to bound memory) for the
    evaluations that follow one another: every prediction file of a leaderboard table."""
    from refbench.tasks.tne.read import read_tne

    return [d for f in data for d in read_tne(f)]


@lru_cache(maxsize=256)
def _evaluate(data: tuple[str, ...], data_stamp: str, pred: str,
              stamp: tuple[int, int]) -> dict[str, Any]:
    from refbench.tasks.tne.metrics import evaluate_tne
    from refbench.tasks.tne.predictions import read_predictions

    docs = _documents(data, data_stamp)
    gold = {d.id: d for d in docs}
    try:
        preds = read_predictions(pred, gold)
    except RefbenchError as exc:
        return {"error": exc.render()}
    return evaluate_tne(docs, preds)


def tne_run_metrics(ds: Dataset, run: RunInfo) -> dict[str, Any]:
    """Scores on all the dataset's documents, as ``refbench evaluate --task tne`` gives them
    (documents without predictions count as predicting nothing, and are counted)."""
    from refbench.web.index import signature

    st = Path(run.predictions).stat()
    return _evaluate(tuple(str(f) for f in ds.files), signature(ds), str(run.predictions),
                     (st.st_size, st.st_mtime_ns))
