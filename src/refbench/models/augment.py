"""Training data with a task's augmentation (``--augment``): KnowRef's antecedent switching,
every instance and its copy with the two candidates swapped everywhere in the text, the answer
flipped. A model that learns to prefer a *name* instead of a role gains nothing on such data;
one that learns the role keeps its answer's role on the switched copy (consistency).

Only tasks with the *training* capability (:class:`refbench.tasks.capabilities.Training`)
take it; the others refuse ``--augment``.
"""

from __future__ import annotations

from pathlib import Path

from refbench.core.errors import UsageError
from refbench.tasks.base import Task


def augmented_training_file(path: Path, *, task: Task | None, work: Path) -> Path:
    """The file the trainer reads instead of ``path``: its instances and their augmented
    copies, written in ``work`` by the task's training capability."""
    from refbench.tasks.choices import infer_task

    the_task = task or infer_task(path)
    if the_task.training is None:
        raise UsageError(f"--augment is available for tasks with augmented training data "
                         f"(antecedent switching); {the_task.name} has none")
    return the_task.training.augmented_file(path, work=work)
