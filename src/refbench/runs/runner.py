"""``refbench run``: a model on a data file (or a whole KITMUS suite), predictions with
per-candidate scores, metrics, provenance, and a row in the results store.

Predictions are cached per (model fingerprint, instance hash) as each batch finishes, so an
interrupted run resumes where it stopped and a repeated run costs nothing. Output layout: a
file run writes ``OUT/predictions.jsonl`` and ``OUT/metrics.json``; a suite run writes one such
run folder per subtask, ``OUT/<variant>/subtask_<n>_ents/<split>/``, and ``OUT/suite-results.json``
(what ``refbench evaluate --task kitmus --gold SUITE --pred OUT`` reads back).
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.errors import E_OUTPUT, RefbenchError
from refbench.core.interrupt import note_kept
from refbench.core.invalid import InvalidInstances
from refbench.core.io import atomic_write, write_text_atomic
from refbench.core.provenance import provenance
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, build_model
from refbench.runs.metrics import choice_metrics, task_metrics
from refbench.runs.store import Store, StoreError
from refbench.tasks.choices import infer_split, infer_task, read_choices


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


def predict_all(model: ChoiceModel, instances: Sequence[ChoiceInstance], store: Store | None,
                *, progress: bool = True, desc: str = "run",
                state: RunState | None = None) -> tuple[list[ModelOutput], int]:
    """Outputs for every instance, from the cache where possible; returns (outputs, n_cached).

    A store that stays locked by another process while a batch is saved does not stop the run:
    that batch is simply not cached (counted in ``state.uncached_batches``).
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
        for chunk in todo:
            results = model.predict([inst for _, inst in chunk])
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
) -> dict[str, Any]:
    """``on_invalid`` (``--skip-invalid``): skip malformed instances, and report them in the
    metrics, instead of stopping at the first."""
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
    state = RunState()
    outputs, n_cached = predict_all(model, instances, store, progress=progress,
                                    desc=f"{spec} on {data.name}", state=state)
    hashes = None
    if model.LM_EVAL_HASHES:
        from refbench.export.lm_eval import instance_hashes

        hashes = instance_hashes(instances)
    metrics = write_predictions(out, task, data, instances, outputs, hashes=hashes,
                                full=limit is None, skip_invalid=skipped is not None)
    pred_path = out / "predictions.jsonl"
    if skipped is not None and on_invalid is not None:
        metrics.update(skipped.report())
        on_invalid.skipped.extend(skipped.skipped)
    metrics.update({"model": spec, "system": system or spec,
                    "model_fingerprint": model.fingerprint(), "data": str(data),
                    "split": infer_split(data), "limit": limit,
                    "reader_options": dict(reader_options or {}), "n_cached": n_cached,
                    "uncached_batches": state.uncached_batches, "created": now(),
                    "out_dir": str(out), "predictions": str(pred_path)})
    metrics["provenance"] = provenance({"data": [str(data)]})
    metrics["provenance"]["model_config"] = model.config()
    return finish_run(metrics, out, store)


def write_predictions(out: Path, task: str, data: Path, instances: Sequence[ChoiceInstance],
                      outputs: Sequence[ModelOutput], *, hashes: Sequence[dict[str, str]] | None
                      = None, full: bool = True, skip_invalid: bool = False) -> dict[str, Any]:
    """Write ``out/predictions.jsonl`` (one line per instance, with lm-eval's hashes when
    given) and return the metrics of the outputs (task metrics too unless ``full`` is False).
    Every run folder, refbench's own or an imported one, is made by this function."""
    pred_path = out / "predictions.jsonl"
    with atomic_write(pred_path) as fh:
        for k, (inst, o) in enumerate(zip(instances, outputs, strict=True)):
            line = {"id": inst.id, **o.to_json(), **(hashes[k] if hashes else {})}
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
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


def finish_run(metrics: dict[str, Any], out: Path, store: Store | None) -> dict[str, Any]:
    """Write ``out/metrics.json`` and record the run in the store."""
    write_text_atomic(out / "metrics.json", json.dumps(metrics, indent=2, ensure_ascii=False,
                                                       default=str) + "\n")
    if store is not None:
        metrics["run_id"] = record_run(store, metrics, out)
    return metrics


def run_suite(spec: str, suite: Path, out: Path, *, split: str = "test",
              model_options: dict[str, Any] | None = None, store: Store | None = None,
              progress: bool = True, system: str | None = None,
              on_invalid: InvalidInstances | None = None) -> dict[str, Any]:
    """Run one model on every subtask of a KITMUS suite; returns a suite result (table)."""
    from refbench.tasks.kitmus.suite_eval import SUITE_RESULTS, find_gold

    model = build_model(spec, model_options)
    name = system or spec
    cells = []
    random_row = {}
    for (variant, n), gold in find_gold(suite, split).items():
        m = run_model(spec, gold, out / variant / f"subtask_{n}_ents" / split, task="kitmus",
                      store=store, progress=progress, model=model, system=name,
                      on_invalid=on_invalid)
        cells.append({"system": name, "variant": variant, "n_entities": n,
                      "pronoun_accuracy": m["pronoun_accuracy"],
                      "antecedent_f1": m["antecedent_f1"],
                      "antecedent_precision": m["antecedent_precision"],
                      "antecedent_recall": m["antecedent_recall"],
                      "task_specific_accuracy": m["task_specific_accuracy"],
                      "ci95": {k: m["ci95"][k] for k in ("pronoun_accuracy", "antecedent_f1",
                                                         "resamples", "seed")},
                      "n": m["n"], "n_runs": 1, "n_cached": m["n_cached"],
                      "gold": str(gold), "predictions": m["predictions"],
                      "run_id": m.get("run_id")})
        random_row[f"{variant}|{n}"] = m["random_baseline"]["pronoun_accuracy"]
    result = {"task": "kitmus", "mode": "suite", "split": split, "gold": str(suite),
              "data": str(suite), "model": spec, "systems": [name], "cells": cells,
              "random_baseline": random_row, "out_dir": str(out),
              "run_ids": [c["run_id"] for c in cells if c["run_id"] is not None],
              "n_cached": sum(c["n_cached"] for c in cells),
              "store": str(store.path) if store else None}
    if on_invalid is not None:
        result.update(on_invalid.report())
    write_text_atomic(out / SUITE_RESULTS, json.dumps(result, indent=2) + "\n")
    return result
