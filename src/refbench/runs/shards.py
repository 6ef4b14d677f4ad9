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

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.invalid import InvalidInstances
from refbench.core.types import ChoiceInstance
from refbench.models.base import ModelOutput
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


def _check_shards(found: Sequence[tuple[Path, dict[str, Any]]]) -> list[tuple[Path,
                                                                              dict[str, Any]]]:
    for folder, m in found:
        if not isinstance(m.get("shard"), dict):
            raise RefbenchError("not a shard of a run (its metrics.json has no shard; "
                                "refbench run --shard I/N writes one)", path=folder)
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


def _shard_outputs(folder: Path, metrics: dict[str, Any],
                   instances: Sequence[ChoiceInstance]) -> list[ModelOutput]:
    path = folder / "predictions.jsonl"
    outputs: list[ModelOutput] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise RefbenchError(f"cannot read the shard's predictions ({type(exc).__name__})",
                            path=path) from None
    if len(lines) != len(instances):
        raise RefbenchError(f"{len(lines)} predictions for a shard of {len(instances)} "
                            "instances", path=path)
    for i, (line, inst) in enumerate(zip(lines, instances, strict=True), 1):
        try:
            obj = json.loads(line)
            if obj["id"] != inst.id:
                raise RefbenchError(f"prediction for {obj['id']!r} where the data has "
                                    f"{inst.id!r}", path=path, line=i)
            outputs.append(ModelOutput.from_json(obj))
        except (json.JSONDecodeError, KeyError, TypeError):
            raise RefbenchError("expected a prediction object with id, answer and scores",
                                path=path, line=i) from None
    return outputs


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
        skipped=skipped, lm_eval_hashes=any("lm_eval_task_hash" in m for _, m in ordered)),
        store=store)


def _sha(path: Path) -> str:
    from refbench.core.io import sha256_file

    return sha256_file(path)
