"""The *studies* capability: the human-study types a task brings (``refbench study``).

Each study type is a class in the task's folder built on :mod:`refbench.studyfile`'s
:class:`~refbench.studyfile.kinds.StudyKind` (answer units, checking, labels, the page, the
native export) with a ``create_command`` of its own; the task lists them by name as
``"module:Class"``, so only the studies layer imports them.
"""

from __future__ import annotations


class Studies:
    def __init__(self, **kinds: str) -> None:
        self.kinds: dict[str, str] = {name.replace("_", "-"): target
                                      for name, target in kinds.items()}
