"""``refbench results import-lm-eval SAMPLES... --data FOLDER``: an lm-eval run of the group that
``refbench export lm-eval --data FOLDER`` wrote (a KITMUS suite, a release folder) becomes the
suite run folder ``refbench run --data FOLDER`` writes: one run folder per subtask under
``OUT/<subfolder>/`` and the task's folder result (``suite-results.json`` for KITMUS), with a
store row per subtask, so ``evaluate``, ``report`` and ``serve`` read it as a native run.

lm-eval's ``--log_samples`` writes one ``samples_<task>_<timestamp>.jsonl`` per subtask of a
group. Each file's task is read from its name (else found by its hash among the
``task_hashes`` of the ``results_*.json`` beside it) and matched to a subtask through
:func:`refbench.runs.lm_eval.docs.folder_tasks`, the very naming the export used. Every file is
read and checked (one file per subtask, every subtask covered unless ``allow_missing``, the
documents' hashes) before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.errors import RefbenchError
from refbench.runs.lm_eval.docs import FolderTask, folder_tasks, logged_hashes, task_hash
from refbench.runs.lm_eval.samples import (
    Prepared,
    lm_eval_model,
    prepare,
    read_samples,
    results_file,
    samples_task,
    write_import,
)
from refbench.runs.record import combine_folder
from refbench.runs.store import Store


def _hashed_task(path: Path, rows: list[tuple[dict[str, Any], Path, int]]) -> str | None:
    """The task whose hash in the ``results_*.json`` beside ``path`` is the hash of its
    samples (lm-eval's ``task_hashes``): a samples file that was renamed."""
    found = results_file(path)
    if found is None:
        return None
    try:
        hashes = json.loads(found.read_text(encoding="utf-8")).get("task_hashes") or {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
        return None
    ordered = sorted((r for r, _, _ in rows), key=lambda r: r.get("doc_id", 0))
    mine = task_hash([logged_hashes(r) for r in ordered])
    named = [t for t, h in hashes.items() if h == mine] if isinstance(hashes, dict) else []
    return named[0] if len(named) == 1 else None


def assign(samples: Sequence[Path], subtasks: Sequence[FolderTask], data: Path, *,
           allow_missing: bool = False
           ) -> list[tuple[FolderTask, Path, list[tuple[dict[str, Any], Path, int]]]]:
    """(subtask, its samples file, the file's sample lines) for every subtask that has one,
    in the folder's order; an error for a file of no subtask, two files of one subtask, or
    (unless ``allow_missing``) a subtask without a file."""
    by_name = {f.name: f for f in subtasks}
    found: dict[str, tuple[Path, list[tuple[dict[str, Any], Path, int]]]] = {}
    for path in samples:
        rows = read_samples([path])
        name = samples_task(path)
        if name not in by_name:
            name = _hashed_task(path, rows) or name
        if name not in by_name:
            named = f"lm-eval task {name!r}" if name else "no samples_<task>_<time>.jsonl name"
            raise RefbenchError(f"these samples match no subtask of {data} ({named}; its "
                                f"{len(subtasks)} tasks are named like {subtasks[0].name})",
                                path=path)
        if name in found:
            raise RefbenchError(f"two samples files for subtask {name} (this one and "
                                f"{found[name][0]}); give one per subtask", path=path)
        found[name] = (path, rows)
    missing = [f.name for f in subtasks if f.name not in found]
    if missing and not allow_missing:
        raise RefbenchError(f"no samples file for {len(missing)} of the {len(subtasks)} "
                            f"subtasks of {data}: {', '.join(missing)}; give --allow-missing "
                            "to import the rest", path=samples[0])
    return [(f, *found[f.name]) for f in subtasks if f.name in found]


def import_lm_eval_folder(samples: Sequence[str | Path], data: str | Path, out: str | Path, *,
                          split: str = "test", store: Store | None = None,
                          model: str | None = None, model_args: str | None = None,
                          allow_missing: bool = False, progress: bool = False
                          ) -> dict[str, Any]:
    """Import lm-eval's samples of every subtask of the folder ``data``; returns the folder
    result ``refbench run --data FOLDER`` returns (plus ``lm_eval``: the model, and the
    subtasks without samples)."""
    paths, data, out = [Path(p) for p in samples], Path(data), Path(out)
    t, subtasks, group = folder_tasks(data, split)
    if not subtasks:
        raise RefbenchError(f"no {split!r} data files in this folder", path=data)
    chosen = assign(paths, subtasks, data, allow_missing=allow_missing)
    prepared: list[tuple[FolderTask, Prepared]] = []
    for sub, path, rows in tqdm(chosen, desc="lm-eval samples", unit="subtask",
                                disable=not progress):
        prepared.append((sub, prepare([path], sub.gold, task=t, rows=rows)))
    models = {json.dumps(lm_eval_model(p.info, model, model_args), default=str)
              for _, p in prepared}
    if len(models) > 1:
        raise RefbenchError("the samples files are of different lm-eval models "
                            f"({' and '.join(sorted(models))}); import each model's run "
                            "separately", path=paths[0])
    runs = [(sub.labels, write_import(prep, out / sub.sub, store=store, model=model,
                                      model_args=model_args)) for sub, prep in prepared]
    first = runs[0][1]
    done = {sub.name for sub, _ in prepared}
    missing = [f.name for f in subtasks if f.name not in done]
    lm = {k: first["lm_eval"].get(k) for k in ("model", "model_args", "version")}
    lm.update({"group": group, "missing": missing})
    return combine_folder(t, data, out, runs, split=split, model=first["model"],
                          system=first["system"], store=store, extra={"lm_eval": lm})
