"""What a study type must say: its answer units, how an answer is checked, when an item is
done, what each answer means as a label, and what its page shows.

The web blueprint, the export and the agreement report are written once against this
interface; each study type (``kitmus-validation``, ``altentities-collection``,
``tne-annotation``) is one subclass in its own module, looked up by name without importing the
others.
"""

from __future__ import annotations

import importlib
from typing import Any

from refbench.core.errors import UsageError
from refbench.studies.db import Item


def study_kinds() -> dict[str, str]:
    """Study type name -> ``"module:Class"``, as the registered tasks declare them
    (:attr:`refbench.tasks.base.Task.study_kinds`), in registry order."""
    from refbench.tasks.base import all_tasks

    return {name: target for t in all_tasks() for name, target in t.study_kinds}


class AnswerError(ValueError):
    """An answer the study type cannot accept (shown to the annotator; HTTP 400)."""


class StudyKind:
    """Base class. ``units`` are the separately saved parts of one item's answer ("" when the
    item has one answer)."""

    name = ""
    template = ""
    instructions_template = ""
    reviewable = False  # free-text answers: the admin page lists them (studies.review)

    def __init__(self, meta: dict[str, Any]) -> None:
        self.meta = meta

    def units(self, item: Item, answers: dict[str, Any]) -> list[str]:
        return [""]

    def clean(self, item: Item, unit: str, value: Any, answers: dict[str, Any],
              options: Any) -> tuple[Any, list[str]]:
        """The value to store and any warnings for the annotator; AnswerError if invalid."""
        raise NotImplementedError

    def done_units(self, item: Item, answers: dict[str, Any]) -> int:
        return sum(1 for u in self.units(item, answers) if u in answers)

    def is_complete(self, item: Item, answers: dict[str, Any]) -> bool:
        return self.done_units(item, answers) == len(self.units(item, answers))

    def labels(self, item: Item, answers: dict[str, Any]) -> list[tuple[str, str]]:
        """(unit, label) rows for the CSV export."""
        raise NotImplementedError

    def form_answer(self, item: Item, form: dict[str, str]) -> tuple[str, Any]:
        """(unit, raw value) from the page's form fields (sent as a form or as JSON)."""
        raise NotImplementedError

    def after_save(self, item: Item, unit: str, answers: dict[str, Any]) -> dict[str, str] | None:
        """Query arguments of the next step on the same item, or None for the next item."""
        return None

    def page(self, item: Item, options: Any, answers: dict[str, Any],
             args: dict[str, str]) -> dict[str, Any]:
        """Template context for the item's page."""
        raise NotImplementedError


class SingleAnswerKind(StudyKind):
    """A study type with one answer per item (unit "")."""

    def clean(self, item: Item, unit: str, value: Any, answers: dict[str, Any],
              options: Any) -> tuple[Any, list[str]]:
        if unit != "":
            raise AnswerError("this study has one answer per item")
        return self.clean_value(item, value)

    def clean_value(self, item: Item, value: Any) -> tuple[Any, list[str]]:
        raise NotImplementedError


def get_kind(name: str, meta: dict[str, Any]) -> StudyKind:
    kinds = study_kinds()
    if name not in kinds:
        raise UsageError(f"unknown study type {name!r}; choose from {', '.join(kinds)}")
    module, _, attr = kinds[name].partition(":")
    cls = getattr(importlib.import_module(module), attr)
    kind: StudyKind = cls(meta)
    return kind
