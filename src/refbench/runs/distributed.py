"""``refbench run --engine dask``: a run's batches predicted on a Dask cluster.

The driver (the ``refbench run`` process) reads the data, looks up the prediction cache, sends
each uncached batch to a worker and gets its outputs back; it alone writes the predictions,
the metrics, the cache and the store row, so the SQLite store never sits on a filesystem that
several machines write (SQLite's locking is unreliable over NFS). A batch is the same batch a
local run predicts (fixed positions in the data), so the outputs are those of a local run, and
an interrupted cluster run resumes from the cache like any run.

Each worker builds the model once (keyed by spec, options, data and task) and keeps it for the
batches that follow; the workers import refbench, so it must be installed (same version) where
they run, and a model that reads files when prepared (``coref-output``) needs the data path to
exist there too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from refbench.core.types import ChoiceInstance
from refbench.core.workers import dask_client
from refbench.models.base import ChoiceModel, ModelOutput, build_model
from refbench.runs.runner import Chunk, Predictor
from refbench.tasks.base import Task

_MODELS: dict[str, ChoiceModel] = {}  # per worker process: models built so far


def predict_remote(spec: str, options: dict[str, Any], data: str, task: str,
                   batch: Sequence[ChoiceInstance]) -> list[dict[str, Any]]:
    """On a worker: the outputs of one batch, as the JSON objects the cache stores (so the
    driver rebuilds exactly what a local run writes). The task crosses to the worker as its
    registry name."""
    from refbench.tasks.lookup import get_task

    key = json.dumps([spec, options, data, task], sort_keys=True, default=str)
    model = _MODELS.get(key)
    if model is None:
        model = build_model(spec, options)
        model.prepare(data, get_task(task))
        _MODELS[key] = model
    return [o.to_json() for o in model.predict(batch)]


class DaskEngine:
    """The cluster at ``scheduler`` as a run's engine: ``engine(data, task)`` is a predictor
    (see :func:`refbench.runs.runner.predict_all`) that spreads the batches over the workers,
    at most ``window`` in flight (default: 2 per worker thread), yielding each as it completes.
    Use it as a context manager: the connection is made at once (so an unreachable scheduler
    fails before any model loads) and closed at the end."""

    def __init__(self, scheduler: str | None, spec: str, options: dict[str, Any] | None,
                 *, window: int | None = None) -> None:
        self.client = dask_client(scheduler)
        self.spec = spec
        self.options = dict(options or {})
        self.window = window

    def __enter__(self) -> DaskEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.close()

    def workers(self) -> int:
        """Worker threads the cluster has now."""
        return int(sum(self.client.nthreads().values()))

    def __call__(self, data: Path, task: Task) -> Predictor:
        client = self.client

        def predict(model: ChoiceModel, chunks: Sequence[Chunk]
                    ) -> Iterator[tuple[Chunk, list[ModelOutput]]]:
            import distributed

            limit = self.window or 2 * max(1, self.workers())
            todo = iter(chunks)
            as_completed: Any = distributed.as_completed  # untyped
            pending: Any = as_completed()
            owner: dict[str, Chunk] = {}

            def submit() -> None:
                chunk = next(todo, None)
                if chunk is not None:
                    fut = client.submit(predict_remote, self.spec, self.options, str(data),
                                        task.name, [inst for _, inst in chunk], pure=False)
                    owner[fut.key] = chunk
                    pending.add(fut)

            for _ in range(limit):
                submit()
            for fut in pending:
                results = [ModelOutput.from_json(o) for o in fut.result()]
                yield owner.pop(fut.key), results
                submit()

        return predict
