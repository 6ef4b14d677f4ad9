"""Runs split into shards (``refbench run --shard I/N``) and merged back into one run
(``refbench results merge``), e.g. one shard per job of a SLURM array.

A shard is a contiguous range of whole batches of the instances (in the data's order, after
``--limit``): the batches the model sees are exactly those of one run in one process, so
batched models give byte-identical scores, and merging the shards' predictions in order gives
one run's ``predictions.jsonl``. The merged run's metrics are computed from the data and those
predictions by the same code as a single run (:func:`refbench.runs.record.finish_run`), and it
is one row in the store; the shards themselves are never recorded as runs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.inputs import read_jsonl
from refbench.core.invalid import InvalidInstances
from refbench.core.records import Record, Where, check_int, check_number
from refbench.core.types import ChoiceInstance
from refbench.models.base import ModelOutput
from refbench.runs.record import ShardPlace
from refbench.runs.store import Store

# What every shard of one run must agree on.
SAME = ("model", "system", "model_fingerprint", "task", "data", "limit", "reader_options")


def parse_shard(text: str | None, env: Mapping[str, str] | None = None
                ) -> tuple[int, int] | None:
    """``I/N`` (1-based), or ``slurm``: the job's place in a SLURM array
    (``SLURM_ARRAY_TASK_ID`` counted from ``SLURM_ARRAY_TASK_MIN``, of
    ``SLURM_ARRAY_TASK_COUNT``), so ``--array=0-3`` and ``--array=1-4`` both give 1/4..4/4."""
    if text is None:
        return None
    env = os.environ if env is None else env
    if text.strip().lower() == "slurm":
        try:
            task_id = int(env["SLURM_ARRAY_TASK_ID"])
            count = int(env["SLURM_ARRAY_TASK_COUNT"])
            first = int(env.get("SLURM_ARRAY_TASK_MIN", "1"))
        except (KeyError, ValueError):
            raise UsageError("--shard slurm needs SLURM_ARRAY_TASK_ID and "
                             "SLURM_ARRAY_TASK_COUNT (run it as a job of a SLURM array, "
                             "e.g. sbatch --array=1-4)") from None
        index = task_id - first + 1
    else:
        i, sep, n = text.partition("/")
        try:
            index, count = int(i), int(n)
        except ValueError:
            index = count = 0
        if not sep:
            count = 0
    if not 1 <= index <= count:
        raise UsageError(f"--shard {text}: expected I/N with 1 <= I <= N (e.g. 2/3), or slurm")
    return index, count


def shard_place(n: int, batch_size: int, index: int, count: int) -> ShardPlace:
    """Shard ``index`` of ``count`` over ``n`` instances (:func:`shard_range`)."""
    start, stop = shard_range(n, batch_size, index, count)
    return {"index": index, "count": count, "start": start, "stop": stop, "n_total": n}


def shard_range(n: int, batch_size: int, index: int, count: int) -> tuple[int, int]:
    """[start, stop) of shard ``index`` of ``count`` over ``n`` instances: whole batches,
    spread as evenly as they go (the first shards take one batch more)."""
    batches = -(-n // batch_size)
    if count > batches:
        raise UsageError(f"--shard {index}/{count}: the data has {n} instances, {batches} "
                         f"batch(es) of {batch_size}; use at most {batches} shards")
    per, extra = divmod(batches, count)
    first = (index - 1) * per + min(index - 1, extra)
    last = first + per + (1 if index <= extra else 0)
    return first * batch_size, min(last * batch_size, n)


def check_shard_metrics(folder: Path, m: dict[str, Any]) -> None:
    """Every field of a shard's metrics.json that merging reads, with its type, checked before
    anything is merged: one error naming the file and the field (a shard written by another
    refbench, or edited, is refused rather than merged wrong)."""
    where = Where(folder / "metrics.json")
    if not isinstance(m.get("shard"), dict):
        raise RefbenchError("not a shard of a run (its metrics.json has no shard; "
                            "refbench run --shard I/N writes one)", path=folder)
    rec = Record(m, where)
    for key in ("model", "system", "model_fingerprint", "task", "data"):
        rec.string(key)
    if rec.raw("limit") is not None:
        rec.integer("limit", min=0, exact=True)
    rec.record("reader_options")
    shard = rec.record("shard")
    count = shard.integer("count", min=1, exact=True)
    shard.integer("index", min=1, max=count, exact=True)
    total = shard.integer("n_total", min=0, exact=True)
    start = shard.integer("start", min=0, max=total, exact=True)
    shard.integer("stop", min=start, max=total, exact=True)
    for key in ("n_cached", "uncached_batches"):
        rec.integer(key, 0, min=0, exact=True)  # absent: 0; null or a fraction: an error
    prov = rec.record("provenance", None)
    if prov is not None:
        prov.record("model_config", None)
        inputs = prov.record("inputs", None)
        data = inputs.records("data", None) if inputs is not None else None
        if data:
            data[0].string("sha256", None)


def _check_shards(found: Sequence[tuple[Path, dict[str, Any]]]) -> list[tuple[Path,
                                                                              dict[str, Any]]]:
    for folder, m in found:
        check_shard_metrics(folder, m)
    first_dir, first = found[0]
    sha = _data_sha(first)
    for folder, m in found[1:]:
        for key in SAME:
            if m.get(key) != first.get(key):
                raise RefbenchError(f"not a shard of the same run as {first_dir}: {key} "
                                    f"{m.get(key)!r} differs from {first.get(key)!r}",
                                    path=folder)
        if _data_sha(m) != sha:
            raise RefbenchError(f"not a shard of the same run as {first_dir}: the data file "
                                "changed between the shards (sha256 differs)", path=folder)
    count = first["shard"]["count"]
    by_index: dict[int, tuple[Path, dict[str, Any]]] = {}
    for folder, m in found:
        s = m["shard"]
        if s["count"] != count or s["n_total"] != first["shard"]["n_total"]:
            raise RefbenchError(f"shard {s['index']}/{s['count']} is not one of "
                                f"{count} shards of {first_dir}'s run", path=folder)
        if s["index"] in by_index:
            raise RefbenchError(f"shard {s['index']}/{count} given twice (also "
                                f"{by_index[s['index']][0]})", path=folder)
        by_index[s["index"]] = (folder, m)
    missing = [str(i) for i in range(1, count + 1) if i not in by_index]
    if missing:
        raise RefbenchError(f"shard(s) {', '.join(missing)} of {count} missing; merge needs "
                            "every shard", path=first_dir)
    ordered = [by_index[i] for i in range(1, count + 1)]
    stop = 0
    for folder, m in ordered:
        if m["shard"]["start"] != stop:
            raise RefbenchError("shards do not tile the data (batch sizes differ?)",
                                path=folder)
        stop = m["shard"]["stop"]
    if stop != first["shard"]["n_total"]:
        raise RefbenchError("shards do not cover the data", path=first_dir)
    return ordered


def _data_sha(metrics: dict[str, Any]) -> str | None:
    inputs = metrics.get("provenance", {}).get("inputs", {}).get("data", [{}])
    sha = (inputs[0] if inputs else {}).get("sha256")
    return str(sha) if sha else None


def shard_output(obj: dict[str, Any], inst: ChoiceInstance, where: Where) -> ModelOutput:
    """One line of a shard's predictions.jsonl, every field's type checked against what
    ``refbench run`` writes: ``id`` (the data's id at this position), ``answer`` (a candidate
    index or null), ``scores`` (one finite number per candidate), optional ``explanation``
    (strings) and ``extra`` (an object). A string where a list belongs would otherwise be
    merged as a list of characters."""
    rec = Record(obj, where)
    item = rec.text("id")
    if item != inst.id:
        raise where.error(f"prediction for {item!r} where the data has {inst.id!r}")
    rec = Record(obj, where.with_item(item))
    n = len(inst.candidates)
    answer = rec.raw("answer")
    if answer is not None:
        answer = check_int(answer, "answer", rec.where, min=0, max=n - 1, exact=True)
    scores = tuple(check_number(x, f"scores[{k}]", rec.where)
                   for k, x in enumerate(rec.items("scores", length=n)))
    explanation = tuple(rec.strings("explanation", []))
    extra = rec.record("extra", None)
    return ModelOutput(answer, scores, explanation, extra.obj if extra is not None else {})


def _shard_outputs(folder: Path, metrics: dict[str, Any],
                   instances: Sequence[ChoiceInstance]) -> list[ModelOutput]:
    path = folder / "predictions.jsonl"
    lines = list(read_jsonl(path))
    if len(lines) != len(instances):
        raise RefbenchError(f"{len(lines)} predictions for a shard of {len(instances)} "
                            "instances", path=path)
    return [shard_output(obj, inst, Where(path, line))
            for (line, obj), inst in zip(lines, instances, strict=True)]


def merge_shards(dirs: Sequence[Path], out: Path, *, store: Store | None = None
                 ) -> dict[str, Any]:
    """One run from all its shards: predictions concatenated in shard order, metrics computed
    again from the data (as a single run computes them), one store row."""
    from refbench.runs.record import FinishedRun, RunSettings, finish_run, run_folders
    from refbench.tasks.choices import read_choices
    from refbench.tasks.lookup import get_task

    found = list(run_folders(list(dirs)))
    ordered = _check_shards(found)
    first = ordered[0][1]
    data = Path(first["data"])
    if not data.is_file():
        raise RefbenchError("the shards' data file is not here (merge reads it again to "
                            "score the predictions)", path=data)
    if _data_sha(first) and _sha(data) != _data_sha(first):
        raise RefbenchError("the data file changed since the shards ran (sha256 differs)",
                            path=data)
    skip = any("n_skipped_invalid" in m for _, m in ordered)
    skipped = InvalidInstances() if skip else None
    task = get_task(str(first["task"]))
    instances = list(read_choices(data, task=task, options=first["reader_options"],
                                  on_invalid=skipped))
    n_in_data = len(instances)
    if first["limit"] is not None:
        instances = instances[:first["limit"]]
    outputs: list[ModelOutput] = []
    for folder, m in ordered:
        s = m["shard"]
        outputs += _shard_outputs(folder, m, instances[s["start"]:s["stop"]])
    settings = RunSettings(model=first["model"], reader_options=first["reader_options"],
                           limit=first["limit"], system=first["system"])
    return finish_run(FinishedRun(
        settings=settings, task=task, data=data, out=out, instances=instances,
        outputs=outputs, fingerprint=first["model_fingerprint"],
        model_config=first.get("provenance", {}).get("model_config", {}),
        n_cached=sum(int(m.get("n_cached", 0)) for _, m in ordered),
        uncached_batches=sum(int(m.get("uncached_batches", 0)) for _, m in ordered),
        skipped=skipped, lm_eval_hashes=any("lm_eval_task_hash" in m for _, m in ordered),
        n_in_data=n_in_data), store=store).metrics


def _sha(path: Path) -> str:
    from refbench.core.io import sha256_file

    return sha256_file(path)
