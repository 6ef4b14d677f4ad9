"""What every choice trainer does before its first step (:func:`training_prologue`); the
selection check itself, which every trainer passes, is :mod:`refbench.tasks.selection`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.tasks.selection import is_test_file, refuse_test_selection

__all__ = ["is_test_file", "refuse_test_selection", "training_prologue"]


def training_prologue(train: Sequence[Any], dev: Sequence[Any], *, out: Path, resume: bool,
                      checkpoint: Path, what: str, need_dev: bool = False,
                      ) -> tuple[list[Any], list[Any], Any]:
    """What every choice trainer does before its first step: keep the instances with a gold
    answer, refuse test instances as dev data, require training (and, ``need_dev``, dev)
    instances, and load the checkpoint to resume from (None: start afresh; a folder holding
    one is never trained over without ``resume``). Returns (train, dev, saved state)."""
    from refbench.core.checkpoint import resume_state

    train = [x for x in train if x.gold is not None]
    dev = [x for x in dev if x.gold is not None]
    refuse_test_selection(instances=dev, option="dev data")
    if not train:
        raise RefbenchError("no training instances with a gold answer")
    if need_dev and not dev:
        raise RefbenchError(f"{what} selects on dev data: none with a gold answer")
    saved = resume_state(checkpoint, resume=resume, out=out, what=f"{what} checkpoint")
    return train, dev, saved
