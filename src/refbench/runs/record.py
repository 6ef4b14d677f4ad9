"""A finished run on disk and in the store: ``predictions.jsonl`` (one line per instance, with
its answer and per-candidate scores), ``metrics.json`` (the task's metrics, the run's settings
and provenance) and a row in the results store.

Every run folder is written here, whether its outputs came from this process, from the shards
of one run (``refbench results merge``) or from an imported lm-eval run, so all of them have the
same files and the same figures; so is a folder run's combined result (:func:`combine_folder`).
The writer serialises the objects it is given and hands them back (:class:`Recorded`): nothing
the same process has just written is read back. A run without an output folder (``refbench.run``
with ``out=None``) writes no run folder; its predictions reach a task's own file-based scorer
through a scratch file removed at once. Reading run folders back is here too
(:func:`run_folders`).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import math
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from refbench.core.errors import E_OUTPUT, RefbenchError
from refbench.core.invalid import InvalidInstances
from refbench.core.io import atomic_write, finite, write_text_atomic
from refbench.core.provenance import provenance
from refbench.core.result import (
    BY_LIMIT,
    BY_LM_EVAL_LIMIT,
    BY_SHARD,
    Coverage,
    Result,
    coverage_of,
    run_identity,
    run_place,
)
from refbench.core.result import data_sha256 as data_sha256  # the one answer, kept importable
from refbench.core.seal import check_record, seal
from refbench.core.types import ChoiceInstance
from refbench.models.base import ModelOutput
from refbench.runs.store import Store, StoreError
from refbench.tasks.base import Task
from refbench.tasks.scoring import score_choices


class ShardPlace(TypedDict):
    """A shard's place in its run's instances, as ``metrics.json`` records it (``shard``):
    the ``index``-th of ``count`` shards, instances [``start``, ``stop``) of ``n_total``."""

    index: int
    count: int
    start: int
    stop: int
    n_total: int


@dataclass(frozen=True)
class RunSettings:
    """How a run is made, all but its data and where its files go: the model spec and its
    options, how the data is read, which part of it, and the name the run is shown under.
    Recorded in every run's ``metrics.json`` (``model``, ``system``, ``limit``,
    ``reader_options``, ``shard``)."""

    model: str
    model_options: dict[str, Any] = field(default_factory=dict)
    reader_options: dict[str, Any] = field(default_factory=dict)
    #: Only the first ``limit`` instances.
    limit: int | None = None
    #: The name in tables and the store (default: the model spec).
    system: str | None = None
    #: (I, N): only the I-th of N deterministic parts of the instances
    #: (:mod:`refbench.runs.shards`); a shard is not recorded in the store.
    shard: tuple[int, int] | None = None
    #: The split of a folder run (a KITMUS suite: which split of every subtask).
    split: str = "test"

    @property
    def name(self) -> str:
        return self.system or self.model


@dataclass
class FinishedRun:
    """What a run computed, before its files are written: its instances and the model's
    outputs for them, and what the files record about how they were made."""

    settings: RunSettings
    task: Task
    data: Path
    #: The run folder; None: no files (the Python API's ``out=None``).
    out: Path | None
    instances: Sequence[ChoiceInstance]
    outputs: Sequence[ModelOutput]
    fingerprint: str
    model_config: dict[str, Any]
    n_cached: int = 0
    uncached_batches: int = 0
    #: The malformed instances the run skipped (``--skip-invalid``), None when it skips none.
    skipped: InvalidInstances | None = None
    #: A shard's place in the data (index, count, start, stop, n_total).
    shard: ShardPlace | None = None
    #: Each prediction carries lm-eval's doc/prompt/target hashes.
    lm_eval_hashes: bool = False
    #: How many instances the data file holds (before ``--limit`` and shards).
    n_in_data: int | None = None


def run_coverage(n: int, *, n_in_data: int | None, limit: int | None,
                 shard: ShardPlace | None = None, lm_eval_limit: bool = False) -> Coverage:
    """How much of its data a run covers: ``n`` instances of the ``n_in_data`` its file holds,
    and why fewer (``--limit``, a shard, lm-eval's ``--limit``)."""
    by: list[str] = []
    if lm_eval_limit:
        by.append(BY_LM_EVAL_LIMIT)
    elif limit is not None and n_in_data is not None and limit < n_in_data:
        by.append(BY_LIMIT)
    if shard is not None:
        by.append(BY_SHARD)
    return Coverage(n, n_in_data, tuple(by))


def as_result(metrics: dict[str, Any], coverage: Coverage | None = None) -> dict[str, Any]:
    """``metrics`` as the :class:`~refbench.core.result.Result` writes it (schema, identities,
    coverage): what every producer hands to :func:`save_run`."""
    result = Result.from_json(metrics)
    if coverage is not None:
        result = result.with_coverage(coverage)
    out = result.to_json()
    for key in ("run_id",):
        if key in metrics:
            out[key] = metrics[key]
    return out


def now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def truncated_tokens(outputs: Sequence[ModelOutput]) -> list[int]:
    """Per output, the tokens its model cut from its inputs to fit its max_length (0: none)."""
    return [int(o.extra.get("truncated_tokens", 0)) for o in outputs]


@dataclass(frozen=True)
class Recorded:
    """A recorded run: the typed :class:`~refbench.core.result.Result` and the metrics the
    writer serialised from it (``metrics.json``; ``run_id`` added when the store took it)."""

    result: Result
    metrics: dict[str, Any]


def finish_run(run: FinishedRun, *, store: Store | None,
               on_invalid: InvalidInstances | None = None) -> Recorded:
    """Write a run's predictions and metrics (and its store row, unless it is a shard), and
    return the Result they serialise. A shard gets only the choice metrics of its instances:
    the task's own scorer needs them all. ``on_invalid`` collects the instances the run
    skipped, for the caller's summary."""
    hashes = None
    if run.lm_eval_hashes:
        from refbench.models.llm_templates import SUBSTITUTION
        from refbench.runs.lm_eval.docs import instance_hashes

        template = str((run.settings.model_options or {}).get("template", SUBSTITUTION))
        hashes = instance_hashes(run.instances, template)
    s = run.settings
    metrics = write_predictions(run.out, run.task, run.data, run.instances, run.outputs,
                                hashes=hashes,
                                skip_invalid=run.skipped is not None)
    if run.skipped is not None:
        metrics.update(run.skipped.report())
        if on_invalid is not None:
            on_invalid.skipped.extend(run.skipped.skipped)
    prov = provenance({"data": [str(run.data.resolve())]})
    metrics.update(run_identity(model=s.model, system=s.name, fingerprint=run.fingerprint,
                                data=run.data, provenance=prov,
                                task_version=run.task.version,
                                split=run.task.infer_split(run.data), created=now()))
    metrics.update({"limit": s.limit, "reader_options": dict(s.reader_options),
                    "n_cached": run.n_cached, "uncached_batches": run.uncached_batches})
    metrics.update(run_place(run.out))
    cut = truncated_tokens(run.outputs)
    if any(cut):  # a model that cuts long inputs says how often it did
        metrics["n_truncated"] = sum(1 for c in cut if c)
        metrics["max_truncated_tokens"] = max(cut)
    if run.shard is not None:
        metrics["shard"] = run.shard
    metrics["provenance"] = prov
    metrics["provenance"]["model_config"] = run.model_config
    coverage = run_coverage(len(run.instances), n_in_data=run.n_in_data, limit=s.limit,
                            shard=run.shard)
    return record(as_result(metrics, coverage), run.out, None if run.shard else store)


def record(payload: dict[str, Any], out: Path | None, store: Store | None) -> Recorded:
    """Save ``payload`` (:func:`as_result`'s) and return it with the Result it serialises."""
    saved = save_run(payload, out, store)  # sealed (and with its store row's id)
    result = Result.from_json({k: v for k, v in saved.items() if k != "run_id"})
    return Recorded(result, saved)


@contextlib.contextmanager
def _predictions_file(out: Path | None) -> Iterator[Path]:
    """``out/predictions.jsonl``; with no folder, a scratch file for the task's own scorer
    (KITMUS', GAP's and KnowRef's read a predictions file), removed afterwards."""
    if out is not None:
        yield out / "predictions.jsonl"
        return
    with tempfile.TemporaryDirectory(prefix="refbench-scratch-") as tmp:
        yield Path(tmp) / "predictions.jsonl"


def write_predictions(out: Path | None, task: Task, data: Path,
                      instances: Sequence[ChoiceInstance], outputs: Sequence[ModelOutput], *,
                      hashes: Sequence[dict[str, str]] | None = None,
                      skip_invalid: bool = False) -> dict[str, Any]:
    """Write ``out/predictions.jsonl`` (one line per instance, with lm-eval's hashes when
    given) and return the metrics of the outputs: the choice metrics and the task's own, over
    the instances the run covers (:func:`refbench.tasks.scoring.score_choices`, which
    ``evaluate`` shares). Every run folder, refbench's own or an imported one, is made by this
    function."""
    with _predictions_file(out) as pred_path:
        _write_lines(pred_path, instances, outputs, hashes)
        norm = [o.extra["answer_norm"] for o in outputs] \
            if outputs and all("answer_norm" in o.extra for o in outputs) else None
        metrics = score_choices(task, data, pred_path, instances, [o.answer for o in outputs],
                                answers_norm=norm, skip_invalid=skip_invalid)
    if hashes:
        from refbench.runs.lm_eval.docs import task_hash

        metrics["lm_eval_task_hash"] = task_hash(hashes)
    return metrics


def _write_lines(pred_path: Path, instances: Sequence[ChoiceInstance],
                 outputs: Sequence[ModelOutput], hashes: Sequence[dict[str, str]] | None
                 ) -> None:
    with atomic_write(pred_path) as fh:
        for k, (inst, o) in enumerate(zip(instances, outputs, strict=True)):
            bad = next((j for j, x in enumerate(o.scores) if not math.isfinite(x)), None)
            if bad is not None:
                raise RefbenchError(f"the score of candidate {bad} is {o.scores[bad]}, not a "
                                    "finite number; predictions.jsonl must be valid JSON",
                                    item=inst.id)
            line = {"id": inst.id, **o.to_json(), **(hashes[k] if hashes else {})}
            fh.write(json.dumps(line, ensure_ascii=False, allow_nan=False) + "\n")


def output_metrics(task: Task, instances: Sequence[ChoiceInstance],
                   outputs: Sequence[ModelOutput]) -> dict[str, Any]:
    """The choice metrics of a model's outputs (accuracy, and acc_norm when the model gives
    ``answer_norm``), with the task's warnings about the data: the definitions ``evaluate``
    uses (:meth:`~refbench.tasks.base.Task.choice_metrics`), so evaluating a run's
    ``predictions.jsonl`` afterwards gives the same figures."""
    norm = [o.extra["answer_norm"] for o in outputs] \
        if outputs and all("answer_norm" in o.extra for o in outputs) else None
    out = task.choice_metrics(instances, [o.answer for o in outputs], answers_norm=norm)
    for warning in task.run_warnings(instances):
        out.setdefault("warnings", []).append(warning)
    return out


def save_run(metrics: dict[str, Any], out: Path | None, store: Store | None) -> dict[str, Any]:
    """Record the run in the store, then write ``out/metrics.json``.

    metrics.json is what makes a folder a run folder, so it comes last: a run killed between
    the two steps leaves a store row whose folder lacks metrics.json (the row holds the
    metrics), never a complete-looking folder the store does not know. When the store refuses
    the run, metrics.json is still written so that ``refbench results add OUT`` can record it
    later (the error says so); when metrics.json cannot be written, the row is removed again.
    With no folder (``out`` None), only the store row.
    """
    # core/seal.py, the last change to the record (no folder: no predictions file to seal)
    metrics = seal(finite(metrics), None if out is None else out / "predictions.jsonl")
    text = json.dumps(metrics, indent=2, ensure_ascii=False, default=str,
                      allow_nan=False) + "\n"
    if store is None:
        if out is not None:
            write_text_atomic(out / "metrics.json", text)
        return metrics
    try:
        run_id = record_run(store, metrics, out)
    except RefbenchError:
        if out is not None:
            write_text_atomic(out / "metrics.json", text)
        raise
    try:
        if out is not None:
            write_text_atomic(out / "metrics.json", text)
    except BaseException:
        with contextlib.suppress(StoreError):
            store.remove([run_id])
        raise
    metrics["run_id"] = run_id
    return metrics


def record_run(store: Store, metrics: dict[str, Any], out: Path | None) -> int:
    """Add a finished run (its metrics.json) to the store. When the store cannot take it, the
    error says how to record the run later from its folder."""
    try:
        return store.add_run(
            created=str(metrics.get("created") or now()), model=str(metrics["model"]),
            fingerprint=str(metrics["model_fingerprint"]), task=str(metrics["task"]),
            data=str(metrics["data"]), data_sha256=data_sha256(metrics),
            n=int(metrics["n"]), metrics=metrics,
            out_dir=str(out.resolve()) if out is not None else None,
            split=metrics.get("split"), system=metrics.get("system"))
    except StoreError as exc:
        later = (f"The run's predictions and metrics are in {out}; record it later with: "
                 f"refbench results add {out}") if out is not None else \
            "Run it again with out=... to keep its files"
        raise RefbenchError(f"{exc.message}. {later}", code=E_OUTPUT,
                            path=store.path) from None


def combine_folder(t: Task, folder: Path, out: Path | None,
                   runs: Sequence[tuple[dict[str, Any], dict[str, Any]]], *, split: str,
                   model: str, system: str, store: Store | None,
                   extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Combine a folder run's runs ((labels, metrics) each, already recorded) into the task's
    folder result and write ``out/<result_file>``: the one combination of a folder run and of
    an imported lm-eval group run, so both give the same files."""
    assert t.folder is not None
    result = t.folder.combine(folder, runs, split=split, model=model, system=system)
    result.update({"out_dir": str(out) if out is not None else None,
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
    if out is not None:
        write_text_atomic(out / t.folder.result_file,
                          json.dumps(finite(result), indent=2, allow_nan=False) + "\n")
    return result


def run_folders(paths: Sequence[Path]) -> Iterator[tuple[Path, dict[str, Any]]]:
    """(folder, metrics) of every run folder in ``paths``: a run folder itself, or each run of
    a folder run's ``--out``."""
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
            check_record(metrics, path=f, folder=f.parent)
            yield f.parent, metrics
