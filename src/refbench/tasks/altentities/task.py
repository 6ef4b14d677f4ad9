"""AltEntities through the :class:`~refbench.tasks.base.Task` interface: a choice task between
entities described by free text (reader options choose which text), with its own web page."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import FileHead, Task
from refbench.tasks.index_records import Problem, Record


class AltEntitiesTask(Task):
    name = "altentities"
    title = "AltEntities"
    summary = "AltEntities: indirect expressions choosing between two entities; accuracy"
    pretty_name = "AltEntities"
    licence = "cc-by-sa-3.0"
    citation = ("Hosseini, Radlinski, Pareti and Louis. Resolving Indirect Referring Expressions "
                "for Entity Selection. ACL 2023.")
    bibtex = """@inproceedings{hosseini-etal-2023-resolving,
    title = "Resolving Indirect Referring Expressions for Entity Selection",
    author = "Hosseini, Mohammad Javad and Radlinski, Filip and Pareti, Silvia and
              Louis, Annie",
    booktitle = "Proceedings of ACL",
    year = "2023",
}"""
    source = "google-research-datasets/AltEntities"
    annotations_creators = ("crowdsourced",)
    card_notes = ("A CC BY-SA 3.0 derivative: share it under the same licence. Recipes and "
                  "songs share some entities between dev and test.")
    slice_keys = ("domain", "sampling_method", "input_type")
    headline_metrics = ("accuracy",)
    facets = (("domain", "domain"), ("sampling_method", "sampling method"),
              ("description_section", "description section"))
    instance_template = "instance_altentities.html"
    leaderboard_columns = (("accuracy", "accuracy"),
                           ("accuracy_norm", "accuracy (length-norm.)"))
    has_evidence = True
    study_kinds = (("altentities-collection",
                    "refbench.studies.altentities:AltEntitiesCollection"),)

    def sniff(self, head: FileHead) -> bool:
        return head.name.endswith(".json") and head.first.lstrip().startswith("[") \
            and '"choices"' in head.text

    def read_choices(self, path: Path, *, options: dict[str, Any] | None = None,
                     on_invalid: InvalidInstances | None = None) -> Iterator[ChoiceInstance]:
        from refbench.tasks.altentities.read import read_altentities

        return read_altentities(path, **dict(options or {}), on_invalid=on_invalid)

    def choice_extras(self, instances: Sequence[ChoiceInstance]) -> dict[str, Any]:
        return {"truncated_instances": sum(int(i.metadata.get("truncated", 0)) > 0
                                           for i in instances)}

    def facet_values(self, inst: ChoiceInstance) -> dict[str, Any]:
        from refbench.tasks.altentities.web_records import altentities_facets

        return altentities_facets(inst)

    def dataset_kind(self, path: Path) -> str:
        return "altentities"

    def web_records(self, path: Path, kind: str) -> Iterator[Record | Problem]:
        from refbench.tasks.altentities.web_records import altentities_records

        return altentities_records(path)

    def instance_context(self, payload: dict[str, Any], *, args: Mapping[str, str],
                         outputs: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
        from refbench.tasks.page import page_candidates

        return {"v": {"candidates": page_candidates(payload)}}


TASK = AltEntitiesTask()
