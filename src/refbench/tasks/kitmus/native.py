"""refbench's native KITMUS JSONL: one instance per line with every field explicit.

Mention spans are ``{"sentence", "start", "end"}`` with ``end`` inclusive and sentence indices
into ``sentences`` (the full text: knowledge sentences first, then task sentences).
"""

from __future__ import annotations

from collections.abc import Iterator
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

from refbench.core.inputs import parse_jsonl
from refbench.core.invalid import InvalidInstances
from refbench.core.records import Record, Where, check_int
from refbench.core.types import Candidate, ChoiceInstance, Mention
from refbench.formats.detok import detokenize
from refbench.tasks.kitmus.instance import Entity, KitmusInstance, Sentence


def _text(inst: KitmusInstance, part: str) -> str:
    from refbench.tasks.kitmus.writers import view_text

    return view_text(inst, "knowledge-text-only" if part == "knowledge" else "task-text-only").text


def instance_to_json(inst: KitmusInstance, *, sentences: bool = True) -> dict[str, Any]:
    out = {
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
    }
    if sentences:
        out["sentences"] = [{"part": s.part, "role": s.role, "tokens": [w for w, _ in s.tokens],
                             "pos": [t for _, t in s.tokens]} for s in inst.sentences]
    return out


def dumps_instance(inst: KitmusInstance) -> str:
    """One line of native JSONL: ``json.dumps(instance_to_json(inst), ensure_ascii=False)``,
    written field by field (the generator's hot loop: twice as fast as building the dict and
    encoding it), with the sentences (the bulk, and last) from the pieces the views share."""
    from refbench.tasks.kitmus.writers import json_strings, sentences_json

    s = encode_basestring
    entities = ", ".join([
        f'{{"name": {s(e.name)}, "occupation": {s(e.occupation)}, "situation": '
        f'{s(e.situation)}, "mentions": [{", ".join([_mention_json(m) for m in e.mentions])}]}}'
        for e in inst.entities])
    noise = "null" if inst.noise is None else (
        f'{{"text": {s(inst.noise)}, "id": '
        f'{"null" if inst.noise_id is None else s(inst.noise_id)}}}')
    templates = ", ".join([f"{s(k)}: {json_strings(list(v))}" for k, v in inst.templates.items()])
    return (f'{{"id": {s(inst.id)}, "variant": {s(inst.variant)}, "n_entities": '
            f'{inst.n_entities:d}, "split": {s(inst.split)}, "index": {inst.index:d}, '
            f'"answer": {inst.answer:d}, "entities": [{entities}], "pronoun": {{"form": '
            f'{s(inst.pronoun)}, "be": {s(inst.pronoun_be)}, "mention": '
            f'{_mention_json(inst.pronoun_mention)}}}, "meet_order": '
            f'[{", ".join([f"{e:d}" for e in inst.meet_order])}], "location": {{"text": '
            f'{s(inst.location)}, "kind": {s(inst.location_kind)}}}, "noise": {noise}, '
            f'"templates": {{{templates}}}, "knowledge_text": {s(_text(inst, "knowledge"))}, '
            f'"task_text": {s(_text(inst, "task"))}, "sentences": {sentences_json(inst)}}}\n')


def _mention_json(m: Mention) -> str:
    return f'{{"sentence": {m.sentence:d}, "start": {m.start:d}, "end": {m.end:d}}}'


def _mention(m: Record) -> Mention:
    return Mention(m.integer("sentence", min=0, exact=True),
                   m.integer("start", min=0, exact=True), m.integer("end", min=0, exact=True))


def _sentence(s: Record) -> Sentence:
    tokens, pos = s.strings("tokens"), s.strings("pos")
    if len(tokens) != len(pos) or not tokens:
        raise s.where.error(f"field '{s.prefix}tokens' and 'pos' must be equally long and "
                            f"non-empty ({len(tokens)} tokens, {len(pos)} tags)")
    return Sentence(s.string("part"), s.string("role"), tuple(zip(tokens, pos, strict=True)))


def instance_from_json(obj: Any, *, path: Path | str = "<json>",
                       line: int = 0) -> KitmusInstance:
    """One native instance, its shape checked once, here: every field's type, mentions inside
    their sentences, ``answer`` an entity index, ``meet_order`` a permutation of the entities,
    every entity mentioned in the task text."""
    rec = Record(obj, Where(path, line))
    rec = Record(obj, Where(path, line, rec.text("id")))
    sentences = tuple(_sentence(s) for s in rec.records("sentences"))
    entities = tuple(Entity(e.string("name"), e.string("occupation"), e.string("situation"),
                            tuple(_mention(m) for m in e.records("mentions")))
                     for e in rec.records("entities"))
    n = len(entities)
    pronoun, location, noise = rec.record("pronoun"), rec.record("location"), \
        rec.record("noise", None)
    templates = rec.record("templates")
    inst = KitmusInstance(
        id=rec.text("id"), variant=rec.string("variant"),
        n_entities=rec.integer("n_entities", min=2), split=rec.string("split"),
        index=rec.integer("index", min=0), sentences=sentences, entities=entities,
        answer=rec.integer("answer", min=0, max=max(0, n - 1), exact=True),
        pronoun=pronoun.string("form"), pronoun_be=pronoun.string("be"),
        pronoun_mention=_mention(pronoun.record("mention")),
        meet_order=tuple(check_int(x, f"meet_order[{i}]", rec.where, min=0, exact=True)
                         for i, x in enumerate(rec.items("meet_order"))),
        location=location.string("text"), location_kind=location.string("kind"),
        noise=noise.string("text") if noise else None,
        noise_id=noise.text("id") if noise else None,
        templates={k: tuple(templates.strings(k)) for k in templates.obj},
    )
    if inst.n_entities != n or sorted(inst.meet_order) != list(range(n)):
        raise rec.where.error(f"n_entities ({inst.n_entities}) and meet_order "
                              f"({list(inst.meet_order)}) must match the {n} entities")
    for m in [inst.pronoun_mention, *(m for e in inst.entities for m in e.mentions)]:
        if not (m.sentence < len(sentences) and m.start <= m.end
                < len(sentences[m.sentence].tokens)):
            raise rec.where.error(f"mention {m.to_json()} lies outside the tokens")
    for e in range(n):
        if not any(sentences[m.sentence].part == "task" for m in entities[e].mentions):
            raise rec.where.error(f"entity {e} ({entities[e].name!r}) has no mention in the task "
                                  "text")
    return inst


def read_native(path: str | Path, *, on_invalid: InvalidInstances | None = None
                ) -> Iterator[KitmusInstance]:
    """The instances of a native JSONL file; with ``on_invalid`` (``--skip-invalid``) a
    malformed one is recorded and skipped."""
    yield from parse_jsonl(path, lambda obj, line: instance_from_json(obj, path=path, line=line),
                           on_invalid=on_invalid)


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
