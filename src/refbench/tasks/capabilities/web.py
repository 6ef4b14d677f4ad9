"""The *web* capability: how the web app lists, filters, searches and draws a task's instances.

A task without one is shown with :data:`PLAIN` (the shared choice page: the text with the
expression and candidates marked, facets from ``metadata``). Pages are rendered from the
records' payloads alone (:class:`refbench.tasks.index_records.Record`), so this capability hands
plain data upward and never imports Flask. A task's own templates live in its folder's
``templates/`` (:meth:`refbench.tasks.base.Task.home`); give them names of their own.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from refbench.core.types import ChoiceInstance
from refbench.tasks.capabilities.core import TaskCore
from refbench.tasks.index_records import Problem, Record


class WebView:
    """Attributes may be set on a subclass or given as keywords (``WebView(facets=...)``).

    - ``facets``: (name, label) the dataset page filters by, in display order;
    - ``text_fields``: named parts of an instance's text a search can be limited to; every
      record then carries ``fields`` with exactly these names;
    - ``instance_template``: the instance page's template;
    - ``leaderboard_columns``: (result key, label) of the leaderboard;
    - ``compare_matrix``: two facet names (rows, columns) for compare's matrix of paired tests
      per subtask (KITMUS: variant x entities), or None;
    - ``twin_neighbours``: look for an instance's switched twin among its neighbours;
    - ``has_evidence``: the instance page offers the cross-encoder's selected evidence.
    """

    facets: tuple[tuple[str, str], ...] = ()
    text_fields: tuple[tuple[str, str], ...] = ()
    instance_template: str = "instance_choice.html"
    leaderboard_columns: tuple[tuple[str, str], ...] = (("accuracy", "accuracy"),)
    compare_matrix: tuple[str, str] | None = None
    twin_neighbours: bool = False
    has_evidence: bool = False

    def __init__(self, **attributes: Any) -> None:
        for key, value in attributes.items():
            if not hasattr(type(self), key) or callable(getattr(type(self), key)):
                raise TypeError(f"WebView has no attribute {key!r}")
            setattr(self, key, value)

    def facet_values(self, inst: ChoiceInstance) -> dict[str, Any]:
        """An instance's facet values (None values are dropped)."""
        return {key: inst.metadata.get(key) for key, _ in self.facets}

    def dataset_kind(self, path: Path) -> str:
        """The kind of one data file (part of the index signature, and a hint to
        :meth:`records`); default ``"choice"``."""
        return "choice"

    def records(self, task: TaskCore, path: Path, kind: str) -> Iterator[Record | Problem]:
        """The index records of one data file; default: one per choice instance, and a
        :class:`Problem` per instance its reader rejects (the page lists them; a file that
        cannot be read at all still raises)."""
        from refbench.core.invalid import InvalidInstances
        from refbench.tasks.index_records import choice_record

        rejected = InvalidInstances()
        for inst in task.read_choices(path, on_invalid=rejected):
            yield choice_record(inst, self.facet_values(inst))
        for item in rejected.skipped:
            yield Problem(f"{item['where'] or path}: {item['id']}: {item['reason']}")

    def context(self, payload: dict[str, Any], *, args: Mapping[str, str],
                outputs: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        """Extra template context of an instance page from the record's payload, the request's
        query arguments and the selected systems' outputs (system id -> output); plain data.
        Default: ``v``, the shared choice page's text segments and candidates."""
        from refbench.tasks.page import choice_view

        return {"v": choice_view(payload)}

    def template_for(self, payload: dict[str, Any]) -> str:
        """The instance page's template for one record (a task whose files come in several
        forms may show some with the shared choice page); default ``instance_template``."""
        return self.instance_template

    def match_key(self, iid: str) -> str:
        """The id a prediction is matched to an indexed instance on (KITMUS ids lose their
        view segment, so runs on the CoNLL and the native file of one suite meet)."""
        return iid

    def twin_ids(self, iid: str) -> list[str]:
        """Ids the instance's switched twin may have (KnowRef ``:switched``, WinoGrande
        ``-1``/``-2``), looked up in this dataset and in the task's other datasets."""
        return []

    def evidence_reading(self, metrics: dict[str, Any]) -> dict[str, Any]:
        """Reader options a run that recorded none read its data with (``has_evidence``)."""
        return {}


PLAIN = WebView()
"""The web view of a task that brings none: the shared choice page."""
