"""The study types of the registered tasks (their studies capability), by name: each is a
:class:`refbench.studyfile.kinds.StudyKind` in its task's folder, imported only when used."""

from __future__ import annotations

import importlib
from typing import Any

from refbench.core.errors import UsageError
from refbench.studyfile.kinds import StudyKind


def study_kinds() -> dict[str, str]:
    """Study type name -> ``"module:Class"``, as the registered tasks' studies capability
    declares them, in registry order."""
    from refbench.tasks.lookup import tasks_with

    return {name: target for t in tasks_with("studies") if t.studies is not None
            for name, target in t.studies.kinds.items()}


def kind_class(name: str) -> type[StudyKind]:
    """The class of the study type ``name``."""
    kinds = study_kinds()
    if name not in kinds:
        raise UsageError(f"unknown study type {name!r}; choose from {', '.join(kinds)}")
    module, _, attr = kinds[name].partition(":")
    cls = getattr(importlib.import_module(module), attr)
    if not (isinstance(cls, type) and issubclass(cls, StudyKind)):
        raise UsageError(f"study type {name!r} ({kinds[name]}) is not a StudyKind")
    return cls


def get_kind(name: str, meta: dict[str, Any]) -> StudyKind:
    """The study type ``name``, for a study whose metadata is ``meta``."""
    return kind_class(name)(meta)
