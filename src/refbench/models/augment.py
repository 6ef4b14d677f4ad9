"""The training data of a choice model (:class:`ChoiceTrainer`): train and dev instances read
the way the task's reader options say, dev held out from the training data when none is given
(:func:`held_out_split`), and a task's augmentation (``--augment``): KnowRef's antecedent
switching, every instance and its copy with the two candidates swapped everywhere in the text,
the answer flipped. A model that learns to prefer a *name* instead of a role gains nothing on
such data; one that learns the role keeps its answer's role on the switched copy (consistency).

Only tasks with the *training* capability (:class:`refbench.tasks.capabilities.Training`)
take ``--augment``; the others refuse it.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.trainer import Trainer, TrainJob
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import Task


class ChoiceTrainer(Trainer):
    """A trainer of a choice model: :meth:`train` reads the job's data (:func:`training_data`)
    and hands the instances to :meth:`fit`."""

    def train(self, job: TrainJob) -> dict[str, Any]:
        train, dev = training_data(job)
        return self.fit(train, dev, job)

    def fit(self, train: list[ChoiceInstance], dev: list[ChoiceInstance],
            job: TrainJob) -> dict[str, Any]:
        raise NotImplementedError


def best_dev(report: dict[str, Any], run_with: str) -> str:
    """The line a choice trainer prints: its best dev accuracy and how to run the model."""
    return (f"best dev accuracy {report['best_dev_accuracy']:.3f} after "
            f"{report['epochs_done']} epoch(s); run it with --model {run_with}")


def training_data(job: TrainJob) -> tuple[list[ChoiceInstance], list[ChoiceInstance]]:
    """(train, dev) of ``job``: read with its reader options, ``--augment``ed when asked; dev
    is ``job.dev`` (never a test file) or a seeded tenth held out of the training data."""
    from refbench.models.selection import refuse_test_selection
    from refbench.tasks.choices import read_choices

    if job.dev is not None:
        refuse_test_selection(job.dev)
    data = job.data
    if job.augment:
        data = augmented_training_file(data, task=job.task, work=job.out)
    train = list(read_choices(data, task=job.task, options=job.reader_options))
    if job.dev is None:
        return held_out_split(train, seed=job.seed)
    return train, list(read_choices(job.dev, task=job.task, options=job.reader_options))


def held_out_split(data: list[ChoiceInstance], *, seed: int,
                   fraction: float = 0.1) -> tuple[list[ChoiceInstance], list[ChoiceInstance]]:
    """(train, dev): a seeded ``fraction`` of the groups held out, so nothing a model could
    memorise crosses over. Instances of one question (AltEntities: every expression of a
    question) form a group, and questions that share an entity are joined into one group (the
    same entity is asked about in several questions); other instances are their own group."""
    parent: dict[str, str] = {}

    def find(a: str) -> str:
        while parent.setdefault(a, a) != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for x in data:
        qid = x.metadata.get("question_id")
        if qid:
            for c in x.candidates:
                parent[find(f"q:{qid}")] = find(f"e:{c.text}")

    def group(x: ChoiceInstance) -> str:
        qid = x.metadata.get("question_id")
        return find(f"q:{qid}") if qid else f"i:{x.id}"

    groups = sorted({group(x) for x in data})
    random.Random(seed).shuffle(groups)
    held = set(groups[:max(1, int(len(groups) * fraction))])
    return [x for x in data if group(x) not in held], [x for x in data if group(x) in held]


def augmented_training_file(path: Path, *, task: Task | None, work: Path) -> Path:
    """The file the trainer reads instead of ``path``: its instances and their augmented
    copies, written in ``work`` by the task's training capability."""
    from refbench.tasks.choices import infer_task

    the_task = task or infer_task(path)
    if the_task.training is None:
        raise UsageError(f"--augment is available for tasks with augmented training data "
                         f"(antecedent switching); {the_task.name} has none")
    return the_task.training.augmented_file(path, work=work)
