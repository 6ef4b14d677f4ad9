"""refbench's native KITMUS JSONL: one instance per line with every field explicit.

Mention spans are ``{"sentence", "start", "end"}`` with ``end`` inclusive and sentence indices
into ``sentences`` (the full text: knowledge sentences first, then task sentences).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import read_jsonl
from refbench.core.types import Candidate, ChoiceInstance, Mention
from refbench.formats.detok import detokenize
from refbench.tasks.kitmus.instance import Entity, KitmusInstance, Sentence


def _text(inst: KitmusInstance, part: str) -> str:
    from refbench.tasks.kitmus.writers import view_text

    return view_text(inst, "knowledge-text-only" if part == "knowledge" else "task-text-only")[0]


def instance_to_json(inst: KitmusInstance) -> dict[str, Any]:
    return {
        "id": inst.id,
        "variant": inst.variant,
        "n_entities": inst.n_entities,
        "split": inst.split,
        "index": inst.index,
        "answer": inst.answer,
        "entities": [
            {
                "name": e.name,
                "occupation": e.occupation,
                "situation": e.situation,
                "mentions": [m.to_json() for m in e.mentions],
            }
            for e in inst.entities
        ],
        "pronoun": {"form": inst.pronoun, "be": inst.pronoun_be,
                    "mention": inst.pronoun_mention.to_json()},
        "meet_order": list(inst.meet_order),
        "location": {"text": inst.location, "kind": inst.location_kind},
        "noise": {"text": inst.noise, "id": inst.noise_id} if inst.noise is not None else None,
        "templates": {k: list(v) for k, v in inst.templates.items()},
        "knowledge_text": _text(inst, "knowledge"),
        "task_text": _text(inst, "task"),
        "sentences": [
            {"part": s.part, "role": s.role, "tokens": [w for w, _ in s.tokens],
             "pos": [t for _, t in s.tokens]}
            for s in inst.sentences
        ],
    }


def dumps_instance(inst: KitmusInstance) -> str:
    return json.dumps(instance_to_json(inst), ensure_ascii=False) + "\n"


def _mention(obj: Any, *, path: Path | str, line: int) -> Mention:
    try:
        return Mention(int(obj["sentence"]), int(obj["start"]), int(obj["end"]))
    except (KeyError, TypeError, ValueError):
        raise RefbenchError("a mention needs integer 'sentence', 'start', 'end'",
                            path=path, line=line) from None


def instance_from_json(obj: dict[str, Any], *, path: Path | str = "<json>",
                       line: int = 0) -> KitmusInstance:
    try:
        sentences = tuple(
            Sentence(s["part"], s["role"], tuple(zip(s["tokens"], s["pos"], strict=True)))
            for s in obj["sentences"]
        )
        entities = tuple(
            Entity(e["name"], e["occupation"], e["situation"],
                   tuple(_mention(m, path=path, line=line) for m in e["mentions"]))
            for e in obj["entities"]
        )
        noise = obj.get("noise")
        inst = KitmusInstance(
            id=str(obj["id"]),
            variant=str(obj["variant"]),
            n_entities=int(obj["n_entities"]),
            split=str(obj["split"]),
            index=int(obj["index"]),
            sentences=sentences,
            entities=entities,
            answer=int(obj["answer"]),
            pronoun=str(obj["pronoun"]["form"]),
            pronoun_be=str(obj["pronoun"]["be"]),
            pronoun_mention=_mention(obj["pronoun"]["mention"], path=path, line=line),
            meet_order=tuple(int(x) for x in obj["meet_order"]),
            location=str(obj["location"]["text"]),
            location_kind=str(obj["location"]["kind"]),
            noise=noise["text"] if noise else None,
            noise_id=noise["id"] if noise else None,
            templates={k: tuple(v) for k, v in obj["templates"].items()},
        )
    except RefbenchError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise RefbenchError(f"not a KITMUS instance (missing or bad field: {exc})",
                            path=path, line=line, item=str(obj.get("id", "?"))) from None
    if not 0 <= inst.answer < len(inst.entities):
        raise RefbenchError(f"answer {inst.answer} is not an entity index", path=path, line=line,
                            item=inst.id)
    for m in [inst.pronoun_mention, *(m for e in inst.entities for m in e.mentions)]:
        if not (0 <= m.sentence < len(sentences)
                and 0 <= m.start <= m.end < len(sentences[m.sentence].tokens)):
            raise RefbenchError(f"mention {m.to_json()} lies outside the tokens", path=path,
                                line=line, item=inst.id)
    return inst


def read_native(path: str | Path) -> Iterator[KitmusInstance]:
    for line, obj in read_jsonl(path):
        yield instance_from_json(obj, path=path, line=line)


def to_choice(inst: KitmusInstance) -> ChoiceInstance:
    """The instance as a choice between its entities, full text as context.

    Candidates are in task-text order (the order the meet sentence names them), the order the
    scorer uses, so an answer index means the same thing everywhere.
    """
    words: list[str] = []
    for s in inst.sentences:
        words.extend(w for w, _ in s.tokens)
    order = list(inst.meet_order)
    return ChoiceInstance(
        id=inst.id,
        task="kitmus",
        context=detokenize(words)[0],
        expression=inst.sentences[inst.pronoun_mention.sentence].tokens[
            inst.pronoun_mention.start][0],
        candidates=tuple(Candidate(inst.entities[e].name, inst.entities[e].mentions)
                         for e in order),
        gold=order.index(inst.answer),
        expression_mention=inst.pronoun_mention,
        metadata={"variant": inst.variant, "n_entities": inst.n_entities, "split": inst.split,
                  "pronoun": inst.pronoun},
    )
