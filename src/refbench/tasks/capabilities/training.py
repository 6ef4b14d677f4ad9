"""The *training* capability: what a task adds to training data when ``refbench train
--augment`` asks (KnowRef: each instance's antecedent-switched copy). A trainer sits above the
tasks, so it asks ``task.training is not None`` and calls :meth:`Training.augmented_file`,
never the task's own modules."""

from __future__ import annotations

from pathlib import Path


class Training:
    """Subclass in the task's folder and set as the task's ``training`` attribute."""

    #: What ``--augment`` adds, in a few words (help texts and errors).
    augmentation: str = ""

    def augmented_file(self, path: Path, *, work: Path) -> Path:
        """A file in ``work`` holding the training data of ``path`` and its augmented copies,
        in a format the task reads; the trainer reads it instead of ``path``."""
        raise NotImplementedError
