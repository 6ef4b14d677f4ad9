"""What ``refbench train`` does, as a library function: any registered trainer (``refbench ls
trainers``) on a data file, selected on dev data (never a test file), checkpointed, resumable.
It returns the trainer's report and its own line on what it made; it prints nothing (but the
progress bar with ``progress=True``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.tasks.base import Task


@dataclass(frozen=True)
class Trained:
    """What a trainer made: its ``report`` (the JSON ``refbench train --json`` prints) and
    ``text``, its own words on what it made and how the trained model is run."""

    report: dict[str, Any]
    text: str


def train(spec: str | None, *, data: Path, out: Path, dev: Path | None = None,
          task: str | Task | None = None, trainer_options: Mapping[str, Any] | None = None,
          reader_options: Mapping[str, Any] | None = None, augment: bool = False,
          seed: int = 13, resume: bool = False, device: str = "auto",
          threads: int | None = None, progress: bool = True) -> Trained:
    """Train with the trainer ``spec`` (``NAME[:ARGUMENT]``; None: the first registered) on
    ``data`` into the model folder ``out``. ``trainer_options`` and ``reader_options`` are
    checked options (the trainer's, the task's reader's); ``task``: a name or a task,
    inferred from ``data`` when None; ``dev``: dev data for selection (a test file is
    refused; None: held out from ``data`` by the trainer)."""
    from refbench.core.device import set_threads
    from refbench.core.plugin_guard import call
    from refbench.core.registry import TRAINERS
    from refbench.core.trainer import (
        TrainJob,
        build_trainer,
        note_training_kept,
        record_trained_on,
        trainer_class,
    )
    from refbench.tasks.choices import infer_task
    from refbench.tasks.lookup import get_task
    from refbench.tasks.selection import check_selection

    spec = spec or TRAINERS.names()[0]
    cls = trainer_class(spec)
    trainer = build_trainer(spec, dict(trainer_options or {}))
    the_task = (get_task(task) if isinstance(task, str) else task) or infer_task(data,
                                                                                kinds=None)
    set_threads(threads)
    job = TrainJob(data=data, dev=dev, out=out, task=the_task,
                   reader_options=dict(reader_options or {}), augment=augment, seed=seed,
                   resume=resume, device=device, progress=progress)
    check_selection(job)  # every trainer's, a plugin's included: never a test file as dev
    note_training_kept(out)
    report = call(TRAINERS.get(spec.partition(":")[0]), f"{cls.__name__}.train", trainer.train,
                  job)
    record_trained_on(job, cls.name)
    return Trained(report, trainer.done(report, job))
