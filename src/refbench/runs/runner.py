"""``refbench run``: a model on a data file (or a whole KITMUS suite), predictions with
per-candidate scores, metrics, provenance, and a row in the results store.

Predictions are cached per (model fingerprint, instance hash) as each batch finishes, so an
interrupted run resumes where it stopped and a repeated run costs nothing.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.errors import RefbenchError
from refbench.core.io import atomic_write, sha256_file, write_text_atomic
from refbench.core.provenance import provenance
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, build_model
from refbench.runs.metrics import choice_metrics, task_metrics
from refbench.runs.store import Store
from refbench.tasks.choices import infer_task, read_choices


def _output(obj: dict[str, Any]) -> ModelOutput:
    return ModelOutput(obj["answer"], tuple(obj["scores"]), tuple(obj.get("explanation", ())),
                       obj.get("extra", {}))


def predict_all(model: ChoiceModel, instances: Sequence[ChoiceInstance], store: Store | None,
                *, progress: bool = True, desc: str = "run") -> tuple[list[ModelOutput], int]:
    """Outputs for every instance, from the cache where possible; returns (outputs, n_cached)."""
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
                store.save_predictions(fp, [(h, res.to_json()) for (h, _), res in
                                            zip(chunk, results, strict=True)])
            bar.update(len(chunk))
    return [outputs[h] for h in hashes], len(instances) - sum(map(len, todo))


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
) -> dict[str, Any]:
    data = Path(data)
    out = Path(out)
    task = task or infer_task(data)
    instances = list(read_choices(data, task=task, options=reader_options))
    if limit is not None:
        instances = instances[:limit]
    if not instances:
        raise RefbenchError("no instances to run on", path=data)
    model = model or build_model(spec, model_options)
    model.prepare(data, task)
    outputs, n_cached = predict_all(model, instances, store, progress=progress,
                                    desc=f"{spec} on {data.name}")
    pred_path = out / "predictions.jsonl"
    with atomic_write(pred_path) as fh:
        for inst, o in zip(instances, outputs, strict=True):
            fh.write(json.dumps({"id": inst.id, **o.to_json()}, ensure_ascii=False) + "\n")
    metrics = choice_metrics(task, instances, outputs)
    if limit is None:
        metrics.update(task_metrics(task, data, pred_path, instances, outputs))
    metrics.update({"model": spec, "system": spec, "model_fingerprint": model.fingerprint(),
                    "data": str(data), "n_cached": n_cached})
    metrics["provenance"] = provenance({"data": [str(data)]})
    metrics["provenance"]["model_config"] = model.config()
    write_text_atomic(out / "metrics.json", json.dumps(metrics, indent=2, ensure_ascii=False,
                                                       default=str) + "\n")
    if store is not None:
        metrics["run_id"] = store.add_run(
            created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"), model=spec,
            fingerprint=model.fingerprint(), task=task, data=str(data),
            data_sha256=sha256_file(data), n=len(instances), metrics=metrics,
            out_dir=str(out))
    return metrics


def run_suite(spec: str, suite: Path, out: Path, *, split: str = "test",
              model_options: dict[str, Any] | None = None, store: Store | None = None,
              progress: bool = True) -> dict[str, Any]:
    """Run one model on every subtask of a KITMUS suite; returns a suite result (table)."""
    from refbench.tasks.kitmus.suite_eval import find_gold

    model = build_model(spec, model_options)
    cells = []
    random_row = {}
    for (variant, n), gold in sorted(find_gold(suite, split).items()):
        m = run_model(spec, gold, out / variant / f"subtask_{n}_ents", task="kitmus",
                      store=store, progress=progress, model=model)
        cells.append({"system": spec, "variant": variant, "n_entities": n,
                      "pronoun_accuracy": m["pronoun_accuracy"],
                      "antecedent_f1": m["antecedent_f1"], "n": m["n"], "n_runs": 1,
                      "run_id": m.get("run_id")})
        random_row[f"{variant}|{n}"] = m["random_baseline"]["pronoun_accuracy"]
    result = {"task": "kitmus", "mode": "suite", "split": split, "gold": str(suite),
              "systems": [spec], "cells": cells, "random_baseline": random_row}
    write_text_atomic(out / "suite-results.json", json.dumps(result, indent=2) + "\n")
    return result
