"""The generated KITMUS instance: sentences with POS tags and exact mention spans."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refbench.core.inputs import format_name
from refbench.core.types import Mention

Token = tuple[str, str]

VIEWS = ("full-text", "task-text-only", "knowledge-text-only")
SUBTASK_DIR = re.compile(r"^subtask_(\d+)_ents$")  # the folder of one entity-count subtask
SPLITS = ("train", "validation", "test")
CONLL_SUFFIXES = (".v4_gold_conll", ".conll", "_conll")


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


def suite_files(root: Path) -> list[Path]:
    """The files that hold a suite's instances, once each: native JSONL where the suite has it,
    else the full-text CoNLL view (the official release has no native files)."""
    subs = sorted(p for p in root.glob("*/subtask_*_ents") if p.is_dir()
                  and SUBTASK_DIR.match(p.name))
    native = [f for s in subs for f in sorted(s.iterdir())
              if f.is_file() and format_name(f).endswith(".jsonl")]
    if native:
        return native
    return [f for s in subs for f in sorted((s / "full-text").glob("*"))
            if f.is_file() and format_name(f).endswith(CONLL_SUFFIXES)]
