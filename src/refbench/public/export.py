"""What ``refbench export`` and ``refbench llm export-hf`` do, as library functions:
refbench's data in other tools' layouts (a Hugging Face datasets folder, an
lm-evaluation-harness task folder) and llm-loglik's weights as a Hugging Face model folder.
Each writes its folder whole (all or nothing) and returns a summary; none prints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from refbench.tasks.base import Task


def hf_dataset(inputs: Sequence[Path], *, out: Path, task: Task | None = None,
               reader_options: Mapping[str, Any] | None = None,
               fmt: str = "jsonl") -> dict[str, Any]:
    """Write ``inputs`` (data files of one task, one split each, or a folder a task takes
    whole) as a folder Hugging Face datasets loads: JSONL (``fmt="parquet"``: Parquet) data
    files and a README.md dataset card. ``task``: inferred when None; ``reader_options``:
    checked options of the task's reader. Returns the summary (task, license, configs with
    each split's size)."""
    from refbench.export.hf import export_hf

    return export_hf(list(inputs), out, task=task,
                     reader_options=None if reader_options is None else dict(reader_options),
                     fmt=fmt)


def lm_eval_tasks(data: Path, *, out: Path, split: str = "test",
                  template: str = "substitution") -> dict[str, Any]:
    """Write an lm-evaluation-harness task folder (``lm_eval --include_path out``) for a data
    file, or for ``split`` of a folder a task takes whole (one task per file and a group),
    its documents in the task's LLM template ``template`` (tasks/<task>/llm_templates.json).
    Returns ``{"include_path", "tasks", "group", "model_args", "template"}``."""
    from refbench.core.inputs import check_input_file
    from refbench.runs.lm_eval.export import export_lm_eval

    if not data.is_dir():
        check_input_file(data, what="data file")
    return export_lm_eval(data, out, split=split, template=template)


def hf_weights(spec: str | None, *, out: Path, overwrite: bool = False) -> dict[str, Any]:
    """Write the weights ``llm-loglik[:spec]`` scores with as a Hugging Face model folder
    (float32 safetensors, config, tokenizer); returns what was written (architecture,
    parameters, source)."""
    from refbench.models.llm_weights import export_hf

    return export_hf(spec, out, overwrite=overwrite)
