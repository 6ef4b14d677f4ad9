"""The ``Trainer``: what ``refbench train --model NAME[:ARGUMENT]`` runs, registered like models.

A trainer is a class with a ``name``, a one-line ``summary`` and its ``OPTIONS`` (a tuple of
:class:`~refbench.core.options.Option`, given as ``--train-arg KEY=VALUE`` or by the flags an
option declares, such as ``--epochs``), listed in :data:`refbench.core.registry.TRAINERS`; another
distribution adds one through an entry point in the group ``refbench.trainers``. The command
builds it (:func:`build_trainer`: unknown keys and bad values are usage errors naming the
trainer's options), hands it a :class:`TrainJob` and prints the report's line
(:meth:`Trainer.done`); it never asks which trainer it runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from refbench.core.options import Configured, Option


@dataclass(frozen=True)
class TrainJob:
    """What every training is given: the data (``dev``: None, the trainer holds some out),
    the model folder, the task (a :class:`refbench.tasks.base.Task`: the one named, else the
    data's) and its checked reader options, ``augment`` (the task's training capability),
    the seed, whether to resume from the folder's checkpoint, the torch device, and whether
    to show progress."""

    data: Path
    dev: Path | None
    out: Path
    task: Any = None
    reader_options: dict[str, Any] = field(default_factory=dict)
    augment: bool = False
    seed: int = 13
    resume: bool = False
    device: str = "auto"
    progress: bool = True


#: Options several trainers take, each with its flag (``--epochs``): (kind, help, minimum).
_SHARED: dict[str, tuple[type, str, float | None]] = {
    "epochs": (int, "passes over the training data", 1),
    "lr": (float, "learning rate", 0),
    "head_lr": (float, "rate of the head (default: lr)", 0),
    "batch_size": (int, "instances per step", 1),
    "max_length": (int, "tokens per sequence", 1),
    "max_steps": (int, "stop after this many steps", 1),
    "eval_every": (int, "also score dev every N steps and before the first (keep the best)", 1),
    "patience": (int, "dev evaluations without a gain before stopping", 0),
    "checkpoint_every": (int, "steps between checkpoints (and at each epoch's end)", 1),
}


def shared_option(name: str, default: Any, help: str = "") -> Option:
    """One of the options several trainers take (``epochs``, ``lr``, ...), with its usual
    help, minimum and flag (``--max-steps``); ``help`` replaces the usual text."""
    kind, usual, least = _SHARED[name]
    return Option(name, kind, default, help or usual, min=least,
                  flags=("--" + name.replace("_", "-"),))


class Trainer(Configured):
    """Trains one kind of model. Subclass it, declare ``OPTIONS`` and implement :meth:`train`;
    ``argument`` is what follows ``NAME:`` on the command line (a base model to start from)."""

    name: ClassVar[str] = ""
    #: The one line ``refbench ls trainers`` shows (a plugin's trainer sets it).
    summary: ClassVar[str] = ""
    version: ClassVar[int] = 1
    OPTIONS: ClassVar[tuple[Option, ...]] = ()  # the --train-arg keys this trainer accepts

    def owner(self) -> str:
        return f"trainer {self.name}"

    def train(self, job: TrainJob) -> dict[str, Any]:
        """Train into ``job.out`` and return the report (printed by ``--json``)."""
        raise NotImplementedError

    def done(self, report: dict[str, Any], job: TrainJob) -> str:
        """The line the command prints when training has finished (or stopped)."""
        return f"trained {self.name}; model in {job.out}"


#: What ``refbench train`` records in the model folder: the task and data trained on
#: (:mod:`refbench.models.transfer` reads it when the model runs).
TRAINED_ON = "trained_on.json"


def record_trained_on(job: TrainJob, trainer: str) -> None:
    """Write ``job.out/trained_on.json``: the task, the training data (path and sha256), the
    dev data and the reader options a finished training used."""
    import json

    from refbench.core.io import sha256_file, write_text_atomic

    if not job.out.is_dir():
        return
    record = {"trainer": trainer, "task": getattr(job.task, "name", None),
              "data": str(job.data), "data_sha256": sha256_file(job.data)
              if job.data.is_file() else None,
              "dev": None if job.dev is None else str(job.dev),
              "reader_options": dict(job.reader_options)}
    write_text_atomic(job.out / TRAINED_ON, json.dumps(record, indent=1, sort_keys=True,
                                                       default=str) + "\n")


def note_training_kept(out: Path) -> None:
    """Make Ctrl-C during a training say what it leaves in the model folder (its checkpoint,
    progress and best weights so far, listed as they are then), not "nothing was written"."""
    from refbench.core.interrupt import NOTHING_KEPT, note_kept

    def kept() -> str:
        try:
            names = sorted(p.name + ("/" if p.is_dir() else "") for p in out.iterdir())
        except OSError:
            names = []
        if not names:
            return NOTHING_KEPT
        resume = ("; --resume continues from the checkpoint" if any(
            n.startswith("checkpoint") for n in names) else "")
        return (f"the training so far stays in {out}: {', '.join(names)} (remove the folder "
                f"to start afresh{resume})")

    note_kept(kept)


def trainer_class(spec: str) -> type[Trainer]:
    """The class a spec (``name``, ``name.vN``, either with ``:argument``) names, from the
    trainer registry (refbench's and the plugins' ``refbench.trainers`` entry points)."""
    from refbench.core.registry import TRAINERS, PluginError

    name = spec.partition(":")[0]
    entry = TRAINERS.get(name)
    cls = TRAINERS.load(name)
    if not (isinstance(cls, type) and issubclass(cls, Trainer)):
        raise PluginError(entry.broken("it is not a refbench.api.Trainer subclass"))
    options = cls.__dict__.get("OPTIONS", cls.OPTIONS)
    if not isinstance(options, tuple | list) or not all(isinstance(o, Option)
                                                       for o in options):
        raise PluginError(entry.broken("its OPTIONS is not a tuple of refbench.api.Option"))
    return cls


def build_trainer(spec: str, options: dict[str, Any] | None = None) -> Trainer:
    """The trainer ``name[:argument]`` with its options checked (a plugin's built through
    :mod:`refbench.core.plugin_guard`, so its failure is one line naming it)."""
    from refbench.core.plugin_guard import call
    from refbench.core.registry import TRAINERS

    name, _, argument = spec.partition(":")
    cls = trainer_class(spec)
    return call(TRAINERS.get(name), f"{cls.__name__}(...)", cls, argument or None,
                **(options or {}))
