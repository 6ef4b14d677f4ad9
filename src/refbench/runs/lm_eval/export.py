"""``refbench export lm-eval``: a task folder that lm-evaluation-harness loads with
``lm_eval --include_path DIR``, scoring exactly the requests ``llm-loglik`` scores.

Each instance becomes one lm-eval document holding the scored strings themselves, so that
lm-eval needs no task-specific code to reproduce refbench's prompts:

* pronoun and blank tasks (KITMUS, Winograd-style data) use lm-eval's *multiple-input* form,
  as its WinoGrande task does ("partial evaluation"): ``choices`` are the texts up to the
  expression with each candidate in its place, ``target`` is the shared rest, and
  ``doc_to_text`` is the gold index;
* free-text expressions use the usual form: one ``query`` and a continuation per candidate.

``target_delimiter`` is empty because the stored continuations carry their own leading space.
The data is local JSONL beside a small ``utils.py`` that reads it relative to itself (the folder
can be moved); a KITMUS suite gets one task per subtask and a group whose accuracy is the mean
weighted by subtask size. Provenance matches lm-eval's ``--log_samples``: each document's
``doc_hash``, ``prompt_hash`` and ``target_hash`` are computed as lm-eval computes them, so a
refbench run and an lm-eval run of the same data can be matched instance by instance.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import sha256_file, write_text_atomic
from refbench.models.llm import SMOLLM2_FILE, smollm2_dir
from refbench.models.llm_templates import SUBSTITUTION
from refbench.runs.lm_eval.docs import (
    folder_tasks,
    lm_eval_doc,
    task_name,
)
from refbench.tasks.base import Task
from refbench.tasks.choices import infer_task, read_choices

SPLIT_NAMES = ("test", "train", "dev", "validation", "val")
UTILS = '''"""Loads refbench's exported documents from beside this file (written by refbench)."""

import json
from pathlib import Path

import datasets


def load_docs(data_file, **kwargs):
    """lm-eval's custom_dataset hook: the JSONL named in dataset_kwargs, as the test split."""
    path = Path(__file__).resolve().parent / data_file
    with path.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return {"test": datasets.Dataset.from_list(rows)}
'''


def default_model_args() -> str:
    """lm-eval ``hf`` model_args that load llm-loglik's default model as refbench loads it."""
    return f"pretrained={smollm2_dir()},gguf_file={SMOLLM2_FILE},dtype=float32"


def sources(data: Path, split: str) -> tuple[list[tuple[str, Path, Task]], str | None]:
    """(lm-eval task name, data file, refbench task) per task, and the group name (suites)."""
    if data.is_dir():
        t, found, group = folder_tasks(data, split)
        return [(f.name, f.gold, t) for f in found], group
    stem = data.name.split(".")[0]
    if stem.lower() in SPLIT_NAMES:
        stem = f"{data.parent.name}_{stem}"
    return [(task_name(stem), data, infer_task(data))], None


def _yaml_task(name: str, data_file: str, multiple_input: bool) -> str:
    form = ('doc_to_text: label\ndoc_to_target: target\n' if multiple_input
            else 'doc_to_text: query\ndoc_to_target: label\n')
    return (f"# Written by refbench export lm-eval; the data is {data_file} beside this file.\n"
            f"task: {name}\n"
            "custom_dataset: !function utils.load_docs\n"
            f"dataset_kwargs:\n  data_file: {json.dumps(data_file)}\n"
            "test_split: test\n"
            "output_type: multiple_choice\n"
            f"{form}"
            "doc_to_choice: choices\n"
            'target_delimiter: ""\n'
            "metric_list:\n"
            "  - metric: acc\n    aggregation: mean\n    higher_is_better: true\n"
            "metadata:\n  version: 1.0\n")


def _yaml_group(group: str, tasks: Sequence[str]) -> str:
    listed = "".join(f"  - {t}\n" for t in tasks)
    return ("# Written by refbench export lm-eval: every subtask, accuracy weighted by size.\n"
            f"group: {group}\ntask:\n{listed}"
            "aggregate_metric_list:\n"
            "  - metric: acc\n    aggregation: mean\n    weight_by_size: true\n"
            "metadata:\n  version: 1.0\n")


def _readme(rows: Sequence[dict[str, Any]], group: str | None, data: Path,
            model_args: str, tasks: Sequence[Task], template: str) -> str:
    from refbench.core.provenance import refbench_bibtex
    from refbench.core.version import __version__

    first = rows[0]["task"] if group is None else group
    lines = [f"# {first} (lm-evaluation-harness tasks exported by refbench {__version__})", "",
             f"Source: `{data}`. Load with `lm_eval --include_path THIS_FOLDER --tasks {first}`;",
             f"refbench's default `llm-loglik` model is `--model hf --model_args {model_args}`.",
             "", f"Each document holds the exact strings refbench's `llm-loglik` scores with "
             f"the LLM template `{template}`, so lm-eval's `acc` equals `refbench run --model "
             f"llm-loglik{'' if template == SUBSTITUTION else ' --model-arg template=' + template}"
             "` on the same data.", "",
             "| task | documents | data file | sha256 |", "|---|---|---|---|"]
    lines += [f"| {r['task']} | {r['n']} | {r['file']} | {r['sha256'][:16]} |" for r in rows]
    lines += ["", "## Citation", "", "```bibtex"]
    for task in sorted({t.name: t for t in tasks}.values(), key=lambda t: t.name):
        if task.card.bibtex:
            lines.append(task.card.bibtex)
    lines += [refbench_bibtex(__version__), "```", ""]
    return "\n".join(lines)


def export_lm_eval(data: str | Path, out: str | Path, *, split: str = "test",
                   template: str = SUBSTITUTION, progress: bool = False) -> dict[str, Any]:
    """Write the task folder; returns {"include_path", "tasks", "group", "model_args",
    "template"}. Each document holds the requests of the task's LLM template ``template``. The
    folder is written into a temporary sibling that replaces ``out`` whole at the end
    (:mod:`refbench.export.folder`): no half-written folder, no stale task YAML."""
    from refbench.export.folder import export_folder

    data, out = Path(data), Path(out)
    found, group = sources(data, split)
    with export_folder(out, "lm-eval", inputs=[(data, "--data")]) as tmp:
        tasks = _write_tasks(found, group, data, tmp, template)
    return {"include_path": str(out), "tasks": tasks, "group": group,
            "model_args": default_model_args(), "template": template}


def _write_tasks(found: Sequence[tuple[str, Path, Task]], group: str | None, data: Path,
                 out: Path, template: str) -> list[str]:
    rows: list[dict[str, Any]] = []
    for name, path, kind in found:
        instances = list(read_choices(path, task=kind))
        if not instances:
            raise RefbenchError("no instances to export", path=path)
        docs = [lm_eval_doc(inst, template) for inst in instances]
        forms = {mi for _, mi in docs}
        if len(forms) > 1:
            odd = next(inst.id for inst, (_, mi) in zip(instances, docs, strict=True)
                       if mi != docs[0][1])
            raise RefbenchError("instances of one file are scored in two forms (a shared "
                                "continuation and a shared context); lm-eval needs one per "
                                "task", path=path, item=odd)
        data_file = f"{name}.jsonl"
        write_text_atomic(out / data_file, "".join(
            json.dumps(doc, ensure_ascii=False, allow_nan=False) + "\n" for doc, _ in docs))
        write_text_atomic(out / f"{name}.yaml", _yaml_task(name, data_file, docs[0][1]))
        rows.append({"task": name, "n": len(docs), "file": data_file, "kind": kind.name,
                     "sha256": sha256_file(out / data_file)})
    if group is not None:
        write_text_atomic(out / f"{group}.yaml", _yaml_group(group, [r["task"] for r in rows]))
    write_text_atomic(out / "utils.py", UTILS)
    write_text_atomic(out / "README.md", _readme(rows, group, data, default_model_args(),
                                                 [t for _, _, t in found], template))
    return [r["task"] for r in rows]
