"""``refbench run``: a model on a data file (or a whole KITMUS suite), predictions with
per-candidate scores, metrics, provenance, and a row in the results store.

Predictions are cached per (model fingerprint, instance hash) as each batch finishes, so an
interrupted run resumes where it stopped and a repeated run costs nothing. Output layout: a
file run writes ``OUT/predictions.jsonl`` and ``OUT/metrics.json``; a suite run writes one such
run folder per subtask, ``OUT/<variant>/subtask_<n>_ents/<split>/``, and ``OUT/suite-results.json``
(what ``refbench evaluate --task kitmus --gold SUITE --pred OUT`` reads back).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import math
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.errors import E_OUTPUT, RefbenchError
from refbench.core.interrupt import note_kept
from refbench.core.invalid import InvalidInstances
from refbench.core.io import atomic_write, finite, write_text_atomic
from refbench.core.provenance import provenance
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, build_model
from refbench.runs.metrics import choice_metrics, task_metrics
from refbench.runs.store import Store, StoreError
from refbench.tasks.base import Task, all_tasks, get_task
from refbench.tasks.choices import infer_task, read_choices


def _output(obj: dict[str, Any]) -> ModelOutput:
    return ModelOutput(obj["answer"], tuple(obj["scores"]), tuple(obj.get("explanation", ())),
                       obj.get("extra", {}))


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
Engine = Callable[[Path, str], Predictor]


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
    fp = model.fingerprint()
    hashes = [inst.fingerprint() for inst in instances]
    cached = store.cached(fp, hashes) if store else {}
    outputs: dict[str, ModelOutput] = {h: _output(o) for h, o in cached.items()}
    # Chunks sit at fixed positions of the whole list and are predicted whole unless every
    # instance in them is cached: a resumed run gives batched models exactly the batches an
    # uninterrupted run gives them, so its scores are byte-identical (padding and batch
    # composition change scores in the last float digits).
    pairs = list(zip(hashes, instances, strict=True))
    chunks = [pairs[i:i + model.batch_size] for i in range(0, len(pairs), model.batch_size)]
    todo = [c for c in chunks if any(h not in cached for h, _ in c)]
    with tqdm(total=len(instances), initial=len(instances) - sum(map(len, todo)), desc=desc,
              unit="inst", disable=not progress) as bar:
        for chunk, results in predictor(model, todo):
            for (h, inst), res in zip(chunk, results, strict=True):
                if res.answer is not None and not 0 <= res.answer < len(inst.candidates):
                    raise RefbenchError(f"model {model.name} answered {res.answer}, not a "
                                        "candidate index", item=inst.id)
                outputs[h] = res
            if store:
                try:
                    store.save_predictions(fp, [(h, res.to_json()) for (h, _), res in
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


def now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def record_run(store: Store, metrics: dict[str, Any], out: Path) -> int:
    """Add a finished run (its metrics.json) to the store. When the store cannot take it, the
    error says how to record the run later from its folder."""
    inputs = metrics.get("provenance", {}).get("inputs", {}).get("data", [{}])
    try:
        return store.add_run(
            created=str(metrics.get("created") or now()), model=str(metrics["model"]),
            fingerprint=str(metrics["model_fingerprint"]), task=str(metrics["task"]),
            data=str(metrics["data"]), data_sha256=(inputs[0] if inputs else {}).get("sha256"),
            n=int(metrics["n"]), metrics=metrics, out_dir=str(out),
            split=metrics.get("split"), system=metrics.get("system"))
    except StoreError as exc:
        raise RefbenchError(f"{exc.message}. The run's predictions and metrics are in {out}; "
                            f"record it later with: refbench results add {out}",
                            code=E_OUTPUT, path=store.path) from None


def run_folders(paths: Sequence[Path]) -> Iterator[tuple[Path, dict[str, Any]]]:
    """(folder, metrics) of every run folder in ``paths``: a run folder itself, or each subtask
    run of a suite run folder."""
    for p in paths:
        files = [p / "metrics.json"] if (p / "metrics.json").is_file() \
            else sorted(p.rglob("metrics.json")) if p.is_dir() else []
        if not files:
            raise RefbenchError("not a run folder (no metrics.json; refbench run --out writes "
                                "one)", path=p)
        for f in files:
            try:
                metrics = json.loads(f.read_text(encoding="utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise RefbenchError("not a run's metrics (invalid JSON)", path=f) from None
            missing = [k for k in ("model", "model_fingerprint", "task", "data", "n")
                       if not isinstance(metrics, dict) or k not in metrics]
            if missing:
                raise RefbenchError(f"not a run's metrics (no {', '.join(missing)})", path=f)
            yield f.parent, metrics


def run_model(
    spec: str,
    data: str | Path,
    out: str | Path,
    *,
    task: str | None = None,
    model_options: dict[str, Any] | None = None,
    reader_options: dict[str, Any] | None = None,
    limit: int | None = None,
    store: Store | None = None,
    progress: bool = True,
    model: ChoiceModel | None = None,
    system: str | None = None,
    on_invalid: InvalidInstances | None = None,
    shard: tuple[int, int] | None = None,
    engine: Engine | None = None,
) -> dict[str, Any]:
    """``on_invalid`` (``--skip-invalid``): skip malformed instances, and report them in the
    metrics, instead of stopping at the first. ``shard`` (I, N): only the I-th of N
    deterministic parts of the instances (:mod:`refbench.runs.shards`); a shard run is not
    recorded in the store (``refbench results merge`` records the whole run). ``engine``:
    where the batches are predicted (:class:`refbench.runs.distributed.DaskEngine`); the
    files and the store are written here whatever the engine."""
    data = Path(data)
    out = Path(out)
    task = task or infer_task(data)
    skipped = InvalidInstances() if on_invalid is not None else None
    instances = list(read_choices(data, task=task, options=reader_options, on_invalid=skipped))
    if limit is not None:
        instances = instances[:limit]
    if not instances:
        raise RefbenchError("no instances to run on", path=data)
    model = model or build_model(spec, model_options)
    model.prepare(data, task)
    shard_info: dict[str, Any] | None = None
    if shard is not None:
        from refbench.runs.shards import shard_range

        start, stop = shard_range(len(instances), model.batch_size, *shard)
        shard_info = {"index": shard[0], "count": shard[1], "start": start, "stop": stop,
                      "n_total": len(instances)}
        instances = instances[start:stop]
    state = RunState()
    outputs, n_cached = predict_all(model, instances, store, progress=progress,
                                    desc=f"{spec} on {data.name}", state=state,
                                    predictor=engine(data, task) if engine else predict_here)
    return finish_run(spec, data, out, task, instances, outputs, limit=limit,
                      reader_options=reader_options, skipped=skipped, on_invalid=on_invalid,
                      system=system, fingerprint=model.fingerprint(),
                      model_config=model.config(), n_cached=n_cached,
                      uncached_batches=state.uncached_batches,
                      store=None if shard_info else store, shard=shard_info,
                      lm_eval_hashes=model.LM_EVAL_HASHES)


def truncated_tokens(outputs: Sequence[ModelOutput]) -> list[int]:
    """Per output, the tokens its model cut from its inputs to fit its max_length (0: none)."""
    return [int(o.extra.get("truncated_tokens", 0)) for o in outputs]


def finish_run(spec: str, data: Path, out: Path, task: str, instances: Sequence[ChoiceInstance],
               outputs: Sequence[ModelOutput], *, limit: int | None,
               reader_options: dict[str, Any] | None, skipped: InvalidInstances | None,
               on_invalid: InvalidInstances | None, system: str | None, fingerprint: str,
               model_config: dict[str, Any], n_cached: int, uncached_batches: int,
               store: Store | None, shard: dict[str, Any] | None = None,
               lm_eval_hashes: bool = False) -> dict[str, Any]:
    """Write a run's predictions and metrics (and its store row) from its outputs: shared by a
    run in one process and by merging the shards of one (so both give the same files). A
    shard gets only the choice metrics of its instances: the task's own scorer needs them
    all. ``lm_eval_hashes``: each prediction carries lm-eval's doc/prompt/target hashes."""
    hashes = None
    if lm_eval_hashes:
        from refbench.export.lm_eval import instance_hashes

        hashes = instance_hashes(instances)
    metrics = write_predictions(out, task, data, instances, outputs, hashes=hashes,
                                full=limit is None and shard is None,
                                skip_invalid=skipped is not None)
    pred_path = out / "predictions.jsonl"
    if skipped is not None and on_invalid is not None:
        metrics.update(skipped.report())
        on_invalid.skipped.extend(skipped.skipped)
    metrics.update({"model": spec, "system": system or spec,
                    "model_fingerprint": fingerprint, "data": str(data),
                    "split": get_task(task).infer_split(data), "limit": limit,
                    "reader_options": dict(reader_options or {}), "n_cached": n_cached,
                    "uncached_batches": uncached_batches, "created": now(),
                    "out_dir": str(out), "predictions": str(pred_path)})
    cut = truncated_tokens(outputs)
    if any(cut):  # a model that cuts long inputs says how often it did
        metrics["n_truncated"] = sum(1 for c in cut if c)
        metrics["max_truncated_tokens"] = max(cut)
    if shard is not None:
        metrics["shard"] = shard
    metrics["provenance"] = provenance({"data": [str(data)]})
    metrics["provenance"]["model_config"] = model_config
    return save_run(metrics, out, store)


def write_predictions(out: Path, task: str, data: Path, instances: Sequence[ChoiceInstance],
                      outputs: Sequence[ModelOutput], *, hashes: Sequence[dict[str, str]] | None
                      = None, full: bool = True, skip_invalid: bool = False) -> dict[str, Any]:
    """Write ``out/predictions.jsonl`` (one line per instance, with lm-eval's hashes when
    given) and return the metrics of the outputs (task metrics too unless ``full`` is False).
    Every run folder, refbench's own or an imported one, is made by this function."""
    pred_path = out / "predictions.jsonl"
    with atomic_write(pred_path) as fh:
        for k, (inst, o) in enumerate(zip(instances, outputs, strict=True)):
            bad = next((j for j, x in enumerate(o.scores) if not math.isfinite(x)), None)
            if bad is not None:
                raise RefbenchError(f"the score of candidate {bad} is {o.scores[bad]}, not a "
                                    "finite number; predictions.jsonl must be valid JSON",
                                    item=inst.id)
            line = {"id": inst.id, **o.to_json(), **(hashes[k] if hashes else {})}
            fh.write(json.dumps(line, ensure_ascii=False, allow_nan=False) + "\n")
    metrics = choice_metrics(task, instances, outputs)
    if full:
        extra = task_metrics(task, data, pred_path, instances, list(outputs),
                             skip_invalid=skip_invalid)
        ci = {**metrics.get("ci95", {}), **extra.pop("ci95", {})}
        metrics.update(extra)
        if ci:
            metrics["ci95"] = ci
    if hashes:
        from refbench.export.lm_eval import task_hash

        metrics["lm_eval_task_hash"] = task_hash(hashes)
    return metrics


def save_run(metrics: dict[str, Any], out: Path, store: Store | None) -> dict[str, Any]:
    """Record the run in the store, then write ``out/metrics.json``.

    metrics.json is what makes a folder a run folder, so it comes last: a run killed between
    the two steps leaves a store row whose folder lacks metrics.json (the row holds the
    metrics), never a complete-looking folder the store does not know. When the store refuses
    the run, metrics.json is still written so that ``refbench results add OUT`` can record it
    later (the error says so); when metrics.json cannot be written, the row is removed again.
    """
    text = json.dumps(finite(metrics), indent=2, ensure_ascii=False, default=str,
                      allow_nan=False) + "\n"
    if store is None:
        write_text_atomic(out / "metrics.json", text)
        return metrics
    try:
        run_id = record_run(store, metrics, out)
    except RefbenchError:
        write_text_atomic(out / "metrics.json", text)
        raise
    try:
        write_text_atomic(out / "metrics.json", text)
    except BaseException:
        with contextlib.suppress(StoreError):
            store.remove([run_id])
        raise
    metrics["run_id"] = run_id
    return metrics


def directory_task(data: Path, task: str | None = None) -> Task:
    """The task that runs on the folder ``data`` whole (a KITMUS suite): ``task`` if given,
    else the task that recognises the folder, else the only task that runs on folders."""
    if task is not None:
        return get_task(task)
    runners = [t for t in all_tasks() if type(t).run_directory is not Task.run_directory]
    found = [t for t in runners if t.is_run_directory(data)]
    if found or len(runners) == 1:
        return (found or runners)[0]
    raise RefbenchError("not a folder of data that refbench runs on whole; give a data file",
                        path=data)


def run_suite(spec: str, suite: Path, out: Path, *, split: str = "test",
              model_options: dict[str, Any] | None = None, store: Store | None = None,
              progress: bool = True, system: str | None = None,
              on_invalid: InvalidInstances | None = None,
              task: str | None = None, engine: Engine | None = None
              ) -> dict[str, Any]:
    """Run one model on every data file of a folder (a KITMUS suite: every subtask) and
    combine the runs into the task's folder result (a table)."""
    t = directory_task(suite, task)
    model = build_model(spec, model_options)
    name = system or spec
    runs = []
    for gold, sub, labels in t.run_directory(suite, split=split):
        m = run_model(spec, gold, out / sub, task=t.name, store=store, progress=progress,
                      model=model, system=name, on_invalid=on_invalid,
                      engine=engine)
        runs.append((labels, m))
    return finish_suite(t, suite, out, runs, split=split, model=spec, system=name,
                        store=store, extra=on_invalid.report() if on_invalid is not None
                        else None)


def finish_suite(t: Task, suite: Path, out: Path,
                 runs: Sequence[tuple[dict[str, Any], dict[str, Any]]], *, split: str,
                 model: str, system: str, store: Store | None,
                 extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Combine a folder run's subtask runs ((labels, metrics) each, their folders already
    written) into the task's folder result and write ``out/<directory_result_file>``: shared
    by ``run_suite`` and by importing an lm-eval group run, so both give the same files."""
    result = t.directory_result(suite, runs, split=split, model=model, system=system)
    result.update({"out_dir": str(out),
                   "run_ids": [m["run_id"] for _, m in runs if m.get("run_id") is not None],
                   "n_cached": sum(m["n_cached"] for _, m in runs),
                   "store": str(store.path) if store else None})
    result.update(extra or {})
    write_text_atomic(out / t.directory_result_file,
                      json.dumps(finite(result), indent=2, allow_nan=False) + "\n")
    return result
