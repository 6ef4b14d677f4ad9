"""What a study type must say: its answer units, how an answer is checked, when an item is
done, what each answer means as a label, what its page shows, how it is created and how its
answers are exported in the benchmark's own format.

The web blueprint, the export and the agreement report are written once against this
interface; each study type (``kitmus-validation``, ``altentities-collection``,
``tne-annotation``) is one subclass in its task's folder, listed by the task's studies
capability and looked up by name without importing the others.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from refbench.studyfile.db import Item, StudyStore


class AnswerError(ValueError):
    """An answer the study type cannot accept (shown to the annotator; HTTP 400)."""


class StudyHooks:
    """What the studies layer asks of a study type beyond answering (mixed into
    :class:`StudyKind`): how it is created, exported and reported."""

    #: Answers are labels from a closed set: the report gives Fleiss' kappa, Krippendorff's
    #: alpha, majority and accuracy (per condition, per group, per annotator).
    choice_agreement: bool = False

    @classmethod
    def create_command(cls) -> Any:
        """The Click command ``refbench study create <name>`` (built on call)."""
        raise NotImplementedError

    @classmethod
    def csv_refusal(cls, records: list[dict[str, str]]) -> str | None:
        """Why an answers CSV of this type has no agreement to compute (None: it has)."""
        return None

    def group_of(self, item: Item) -> str | None:
        """The group a choice study breaks accuracy down by (KITMUS: the variant)."""
        return None

    def flags(self, item: Item, label: str) -> list[str]:
        """Warnings about one answer, exported beside it (AltEntities: expressions that name
        the entity)."""
        return []

    def report(self, store: StudyStore, answers: dict[str, dict[str, dict[str, Any]]]
               ) -> dict[str, Any]:
        """Sections the agreement report adds for this type (merged into its JSON)."""
        return {}

    def report_lines(self, report: dict[str, Any]) -> list[str]:
        """Those sections as text lines."""
        return []

    def native(self, items: list[Item], answers: dict[str, dict[str, dict[str, Any]]],
               out: Path) -> dict[Path, str]:
        """The answers in the benchmark's own format: file path -> text (``study export
        --format native``), so refbench can run models on what people made."""
        return {}


class StudyKind(StudyHooks):
    """Base class. ``units`` are the separately saved parts of one item's answer ("" when the
    item has one answer)."""

    name = ""
    template = ""  # the item page, among the task's templates
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
