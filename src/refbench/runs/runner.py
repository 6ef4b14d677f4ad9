"""A model on one data file: predictions with per-candidate scores (from the prediction cache
where possible), metrics, provenance, and a row in the results store. The one run path
(:func:`refbench.runs.path.run`) runs every data file through :func:`run_file`, whether it was
given alone, is one of a folder a task takes whole (a KITMUS suite) or one of several
benchmarks. A run's settings travel as one :class:`~refbench.runs.record.RunSettings`; its
files are written by :mod:`refbench.runs.record`.

Predictions are cached per (model fingerprint, instance hash) as each batch finishes, so an
interrupted run resumes where it stopped and a repeated run costs nothing. Output layout: a
file run writes ``OUT/predictions.jsonl`` and ``OUT/metrics.json``; a folder run writes one
such run folder per data file (a KITMUS suite: ``OUT/<variant>/subtask_<n>_ents/<split>/``) and
the folder's combined result (``OUT/suite-results.json``), which ``refbench evaluate --gold
FOLDER --pred OUT`` reads back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.interrupt import note_kept
from refbench.core.invalid import InvalidInstances
from refbench.core.progress import progress_bar
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, build_model
from refbench.runs.record import FinishedRun, Recorded, RunSettings, ShardPlace, finish_run
from refbench.runs.shards import shard_place
from refbench.runs.store import Store, StoreError
from refbench.tasks.base import Task
from refbench.tasks.choices import infer_task, read_choices
from refbench.tasks.scope import own_options


def batches(todo: Sequence[tuple[str, ChoiceInstance]], size: int
            ) -> Iterator[list[tuple[str, ChoiceInstance]]]:
    """The order and grouping in which uncached instances reach ``model.predict``."""
    for i in range(0, len(todo), size):
        yield list(todo[i:i + size])


class RunState:
    """What a run learned about the cache as it went."""

    def __init__(self) -> None:
        self.n_cached = 0
        self.uncached_batches = 0


Chunk = list[tuple[str, ChoiceInstance]]
# Predicts chunks (in any order) and yields each with its outputs: the engine of a run.
Predictor = Callable[[ChoiceModel, Sequence[Chunk]], Iterator[tuple[Chunk, list[ModelOutput]]]]
# The predictor for a data file and its task (e.g. a Dask cluster's); None: this process.
Engine = Callable[[Path, Task], Predictor]


def predict_here(model: ChoiceModel, chunks: Sequence[Chunk]
                 ) -> Iterator[tuple[Chunk, list[ModelOutput]]]:
    """The local engine: each chunk in this process, in order."""
    for chunk in chunks:
        yield chunk, model.predict([inst for _, inst in chunk])


def predict_all(model: ChoiceModel, instances: Sequence[ChoiceInstance], store: Store | None,
                *, progress: bool = True, desc: str = "run",
                state: RunState | None = None, predictor: Predictor = predict_here
                ) -> tuple[list[ModelOutput], int]:
    """Outputs for every instance, from the cache where possible; returns (outputs, n_cached).

    A store that stays locked by another process while a batch is saved does not stop the run:
    that batch is simply not cached (counted in ``state.uncached_batches``). ``predictor`` runs
    the uncached chunks (here, or on a Dask cluster: :mod:`refbench.runs.distributed`); only
    this process writes the cache.
    """
    state = state or RunState()
    # a model of unversioned code (a function from a notebook: refbench.models.user) never
    # reads nor writes the prediction cache; its config() records why
    if getattr(model, "cacheable", True) is False:
        store = None
    fp = model.fingerprint()
    hashes = [inst.fingerprint() for inst in instances]
    cached = store.cached(fp, hashes) if store else {}
    outputs: dict[str, ModelOutput] = dict(cached)
    # Chunks sit at fixed positions of the whole list and are predicted whole unless every
    # instance in them is cached: a resumed run gives batched models exactly the batches an
    # uninterrupted run gives them, so its scores are byte-identical (padding and batch
    # composition change scores in the last float digits).
    pairs = list(zip(hashes, instances, strict=True))
    chunks = [pairs[i:i + model.batch_size] for i in range(0, len(pairs), model.batch_size)]
    todo = [c for c in chunks if any(h not in cached for h, _ in c)]
    with progress_bar(total=len(instances), initial=len(instances) - sum(map(len, todo)),
                      desc=desc, unit="inst", disable=not progress) as bar:
        for chunk, results in predictor(model, todo):
            for (h, inst), res in zip(chunk, results, strict=True):
                if res.answer is not None and not 0 <= res.answer < len(inst.candidates):
                    raise RefbenchError(f"model {model.name} answered {res.answer}, not a "
                                        "candidate index", item=inst.id)
                outputs[h] = res
            if store:
                try:
                    store.save_predictions(fp, [(h, res) for (h, _), res in
                                                zip(chunk, results, strict=True)])
                except StoreError as exc:
                    if exc.kind != "locked":
                        raise
                    state.uncached_batches += 1
                else:
                    note_kept(f"predictions for {len(outputs)} of {len(instances)} instances "
                              f"are cached in {store.path}; run the same command again to "
                              "resume")
            bar.update(len(chunk))
    n_cached = len(instances) - sum(map(len, todo))
    state.n_cached = n_cached
    return [outputs[h] for h in hashes], n_cached


@dataclass(frozen=True)
class FileRun:
    """One data file's run, in memory: its task, the instances run, the model's outputs for
    them, and what the writer recorded (:class:`~refbench.runs.record.Recorded`: the typed
    Result and the metrics it serialised). ``place``: its folder under the benchmark's output
    (``.`` for a data file run alone); ``labels``: its labels in a folder's table."""

    task: Task
    instances: Sequence[ChoiceInstance]
    outputs: Sequence[ModelOutput]
    recorded: Recorded
    place: Path = Path(".")
    labels: dict[str, Any] = field(default_factory=dict)

    @property
    def metrics(self) -> dict[str, Any]:
        return self.recorded.metrics


def run_file(s: RunSettings, data: Path, out: Path | None, *, task: Task | None = None,
             store: Store | None = None, progress: bool = True,
             model: ChoiceModel | None = None, on_invalid: InvalidInstances | None = None,
             engine: Engine | None = None, place: Path = Path("."),
             labels: dict[str, Any] | None = None) -> FileRun:
    """Run a model on one data file: the step of :func:`refbench.runs.path.run` for each data
    file. ``task``: inferred from the file when None; ``model``: an already built model (a
    folder run builds it once; the Python API passes the user's); ``out``: the run folder
    (None: no files); ``on_invalid`` (``--skip-invalid``): skip malformed instances, and report
    them in the metrics, instead of stopping at the first; ``engine``: where the batches are
    predicted (:class:`refbench.runs.distributed.DaskEngine`); the files and the store are
    written here whatever the engine. A shard run is not recorded in the store
    (``refbench results merge`` records the whole run)."""
    task = task or infer_task(data)
    s = replace(s, reader_options=own_options(task, s.reader_options))  # its task's keys only
    skipped = InvalidInstances() if on_invalid is not None else None
    instances = list(read_choices(data, task=task, options=s.reader_options,
                                  on_invalid=skipped))
    n_in_data = len(instances)
    if s.limit is not None:
        instances = instances[:s.limit]
    if not instances:
        raise RefbenchError("no instances to run on", path=data)
    model = model or build_model(s.model, s.model_options)
    model.prepare(data, task)
    shard_info: ShardPlace | None = None
    if s.shard is not None:
        shard_info = shard_place(len(instances), model.batch_size, *s.shard)
        instances = instances[shard_info["start"]:shard_info["stop"]]
    state = RunState()
    outputs, n_cached = predict_all(model, instances, store, progress=progress,
                                    desc=f"{s.model} on {data.name}", state=state,
                                    predictor=engine(data, task) if engine else predict_here)
    recorded = finish_run(FinishedRun(
        settings=s, task=task, data=data, out=out, instances=instances, outputs=outputs,
        fingerprint=model.fingerprint(), model_config=model.config(), n_cached=n_cached,
        uncached_batches=state.uncached_batches, skipped=skipped, shard=shard_info,
        lm_eval_hashes=model.LM_EVAL_HASHES, n_in_data=n_in_data), store=store,
        on_invalid=on_invalid)
    return FileRun(task, instances, outputs, recorded, place, dict(labels or {}))


def run_model(settings: RunSettings | str, data: str | Path, out: str | Path, *,
              task: Task | None = None, store: Store | None = None, progress: bool = True,
              model: ChoiceModel | None = None, on_invalid: InvalidInstances | None = None,
              engine: Engine | None = None) -> dict[str, Any]:
    """:func:`run_file`'s metrics, for a bare model spec (the defaults) or settings: the
    short form tests and benchmarks scripts use."""
    s = RunSettings(settings) if isinstance(settings, str) else settings
    return run_file(s, Path(data), Path(out), task=task, store=store, progress=progress,
                    model=model, on_invalid=on_invalid, engine=engine).metrics
