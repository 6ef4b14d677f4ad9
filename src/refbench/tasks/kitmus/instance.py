"""The generated KITMUS instance: sentences with POS tags and exact mention spans."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from refbench.core.types import Mention

Token = tuple[str, str]

VIEWS = ("full-text", "task-text-only", "knowledge-text-only")
SUBTASK_DIR = re.compile(r"^subtask_(\d+)_ents$")  # the folder of one entity-count subtask
SPLITS = ("train", "validation", "test")


@dataclass(frozen=True)
class Sentence:
    part: str  # "knowledge" | "task"
    role: str  # entity_knowledge | background_knowledge | meet | noise | pronoun
    tokens: tuple[Token, ...]


@dataclass(frozen=True)
class Entity:
    name: str
    occupation: str
    situation: str
    mentions: tuple[Mention, ...]  # sentence indices refer to KitmusInstance.sentences


@dataclass(frozen=True)
class KitmusInstance:
    id: str
    variant: str
    n_entities: int
    split: str
    index: int
    sentences: tuple[Sentence, ...]
    entities: tuple[Entity, ...]  # in knowledge-text order
    answer: int
    pronoun: str
    pronoun_be: str
    pronoun_mention: Mention
    meet_order: tuple[int, ...]  # entity indices in the order the meet sentence names them
    location: str
    location_kind: str
    noise: str | None
    noise_id: str | None
    templates: dict[str, tuple[str, ...]]
    # Derived values (e.g. a view's detokenised text) computed once and shared by the writers.
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def view_sentences(self, view: str) -> list[int]:
        """Indices of the sentences shown in a view."""
        if view == "full-text":
            return list(range(len(self.sentences)))
        part = "task" if view == "task-text-only" else "knowledge"
        return [i for i, s in enumerate(self.sentences) if s.part == part]

    def task_mention(self, entity: int) -> Mention:
        """The entity's mention in the task text (in the meet sentence)."""
        for m in self.entities[entity].mentions:
            if self.sentences[m.sentence].part == "task":
                return m
        raise ValueError(f"{self.id}: entity {entity} has no task-text mention")
