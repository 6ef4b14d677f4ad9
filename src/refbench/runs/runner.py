"""``refbench run``: a model on a data file (or a folder some task takes whole, such as a KITMUS
suite), predictions with per-candidate scores, metrics, provenance, and a row in the results
store. A run's settings travel as one :class:`~refbench.runs.record.RunSettings`; its files are
written by :mod:`refbench.runs.record`.

Predictions are cached per (model fingerprint, instance hash) as each batch finishes, so an
interrupted run resumes where it stopped and a repeated run costs nothing. Output layout: a
file run writes ``OUT/predictions.jsonl`` and ``OUT/metrics.json``; a folder run writes one
such run folder per data file (a KITMUS suite: ``OUT/<variant>/subtask_<n>_ents/<split>/``) and
the folder's combined result (``OUT/suite-results.json``), which ``refbench evaluate --gold
FOLDER --pred OUT`` reads back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.interrupt import note_kept
from refbench.core.invalid import InvalidInstances
from refbench.core.io import finite, write_text_atomic
from refbench.core.progress import progress_bar
from refbench.core.result import BY_LIMIT, coverage_of
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, build_model
from refbench.runs.record import FinishedRun, RunSettings, ShardPlace, finish_run
from refbench.runs.shards import shard_place
from refbench.runs.store import Store, StoreError
from refbench.tasks.base import Task
from refbench.tasks.choices import infer_task, read_choices
from refbench.tasks.lookup import folder_task_of
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


def run_model(settings: RunSettings | str, data: str | Path, out: str | Path, *,
              task: Task | None = None, store: Store | None = None, progress: bool = True,
              model: ChoiceModel | None = None, on_invalid: InvalidInstances | None = None,
              engine: Engine | None = None) -> dict[str, Any]:
    """Run a model on one data file. ``settings``: how (a bare model spec for the defaults);
    ``task``: inferred from the file when None; ``model``: an already built model (a folder
    run builds it once); ``on_invalid`` (``--skip-invalid``): skip malformed instances, and
    report them in the metrics, instead of stopping at the first; ``engine``: where the
    batches are predicted (:class:`refbench.runs.distributed.DaskEngine`); the files and the
    store are written here whatever the engine. A shard run is not recorded in the store
    (``refbench results merge`` records the whole run)."""
    s = RunSettings(settings) if isinstance(settings, str) else settings
    data = Path(data)
    out = Path(out)
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
    return finish_run(FinishedRun(
        settings=s, task=task, data=data, out=out, instances=instances, outputs=outputs,
        fingerprint=model.fingerprint(), model_config=model.config(), n_cached=n_cached,
        uncached_batches=state.uncached_batches, skipped=skipped, shard=shard_info,
        lm_eval_hashes=model.LM_EVAL_HASHES, n_in_data=n_in_data), store=store,
        on_invalid=on_invalid)


def run_suite(settings: RunSettings | str, suite: Path, out: Path, *,
              store: Store | None = None, progress: bool = True,
              on_invalid: InvalidInstances | None = None, task: Task | None = None,
              engine: Engine | None = None, model: ChoiceModel | None = None
              ) -> dict[str, Any]:
    """Run one model on every data file of a folder (a KITMUS suite: every subtask of
    ``settings.split``) and combine the runs into the task's folder result (a table)."""
    s = RunSettings(settings) if isinstance(settings, str) else settings
    t = folder_task_of(suite, task)
    assert t.folder is not None
    if s.limit is not None and t.folder.limit_refused:
        raise UsageError(f"--limit on a {t.title} folder: {t.folder.limit_refused}")
    model = model or build_model(s.model, s.model_options)
    runs = []
    for gold, sub, labels in t.folder.files(suite, split=s.split):
        m = run_model(s, gold, out / sub, task=t, store=store, progress=progress,
                      model=model, on_invalid=on_invalid, engine=engine)
        runs.append((labels, m))
    return finish_suite(t, suite, out, runs, split=s.split, model=s.model, system=s.name,
                        store=store, extra=on_invalid.report() if on_invalid is not None
                        else None)


def finish_suite(t: Task, suite: Path, out: Path,
                 runs: Sequence[tuple[dict[str, Any], dict[str, Any]]], *, split: str,
                 model: str, system: str, store: Store | None,
                 extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Combine a folder run's runs ((labels, metrics) each, their folders already written)
    into the task's folder result and write ``out/<result_file>``: shared by ``run_suite`` and
    by importing an lm-eval group run, so both give the same files."""
    assert t.folder is not None
    result = t.folder.combine(suite, runs, split=split, model=model, system=system)
    result.update({"out_dir": str(out),
                   "run_ids": [m["run_id"] for _, m in runs if m.get("run_id") is not None],
                   "n_cached": sum(m["n_cached"] for _, m in runs),
                   "store": str(store.path) if store else None})
    result.update(extra or {})
    covered = [coverage_of(m) for _, m in runs]
    if any(c.is_partial for c in covered):  # a folder run over part of its files' instances
        by = sorted({b for c in covered for b in c.by}) or [BY_LIMIT]
        of = sum(c.of for c in covered if c.of is not None) \
            if all(c.of is not None for c in covered) else None
        result["data_coverage"] = {"n": sum(c.n for c in covered), "of": of,
                                   "by": ", ".join(by)}
        result["partial_by"] = by
    write_text_atomic(out / t.folder.result_file,
                      json.dumps(finite(result), indent=2, allow_nan=False) + "\n")
    return result
