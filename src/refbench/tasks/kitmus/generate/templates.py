"""Sentence templates: parsing, slot checking, filling, a/an and capitalisation.

A template is tagged text with slots, e.g. ``At/IN {location} ,/, {mentions} met/VBD ./.``.
Filling returns the tokens and the token span of every slot, which is how the generator knows
where each entity mention and the pronoun are without searching the text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from refbench.core.errors import E_TEMPLATE, RefbenchError

Token = tuple[str, str]

# Slots each template type must contain, and the slots it may contain.
REQUIRED_SLOTS: dict[str, frozenset[str]] = {
    "meet": frozenset({"location", "mentions"}),
    "pronoun": frozenset({"pronoun", "situation"}),
    "entity_knowledge": frozenset({"entity", "occupation"}),
    "background_knowledge": frozenset({"occupation", "situation"}),
}
OPTIONAL_SLOTS: dict[str, frozenset[str]] = {
    "meet": frozenset(),
    "pronoun": frozenset({"be"}),
    "entity_knowledge": frozenset({"a_an"}),
    "background_knowledge": frozenset({"a_an"}),
}
A_AN = "a_an"

_AN_EXCEPTIONS = ("hour", "honest", "honor", "honour", "heir")
_A_EXCEPTIONS = ("uni", "use", "usu", "ure", "uro", "eu", "one", "once", "ewe", "uti")


def indefinite_article(next_word: str) -> str:
    """'a' or 'an' for the word that follows, by its (approximate) first sound."""
    w = next_word.lower()
    if w.startswith(_AN_EXCEPTIONS):
        return "an"
    if w.startswith(_A_EXCEPTIONS):
        return "a"
    return "an" if w[:1] in ("a", "e", "i", "o", "u") else "a"


def capitalize_first(word: str) -> str:
    """Upper-case the first character only, keeping the rest of the token ("iPad" -> "IPad")."""
    return word[:1].upper() + word[1:]


@dataclass(frozen=True)
class Template:
    template_id: str
    kind: str
    parts: tuple[Token | str, ...]  # a literal (word, tag) or a slot name

    @property
    def slots(self) -> frozenset[str]:
        return frozenset(p for p in self.parts if isinstance(p, str))


def parse_template(text: str, *, kind: str, template_id: str, path: Path | str) -> Template:
    parts: list[Token | str] = []
    for item in text.split():
        if item.startswith("{") and item.endswith("}"):
            parts.append(item[1:-1])
            continue
        word, sep, tag = item.rpartition("/")
        if not sep or not word or not tag:
            raise RefbenchError(
                f"template {template_id}: token {item!r} is neither word/TAG nor {{slot}}",
                code=E_TEMPLATE, path=path,
            )
        parts.append((word, tag))
    tpl = Template(template_id, kind, tuple(parts))
    check_slots(tpl, path=path)
    return tpl


def check_slots(tpl: Template, *, path: Path | str) -> None:
    slots = tpl.slots
    if tpl.kind == "mentions":
        n = int(tpl.template_id.rsplit("-", 1)[-1])
        expected = frozenset(str(i) for i in range(n))
        if slots != expected:
            raise RefbenchError(
                f"template {tpl.template_id}: needs exactly the slots "
                f"{', '.join('{' + s + '}' for s in sorted(expected))}",
                code=E_TEMPLATE, path=path,
            )
        return
    required = REQUIRED_SLOTS[tpl.kind]
    missing = required - slots
    if missing:
        raise RefbenchError(
            f"template {tpl.template_id}: missing slot(s) "
            f"{', '.join('{' + s + '}' for s in sorted(missing))}",
            code=E_TEMPLATE, path=path,
        )
    unknown = slots - required - OPTIONAL_SLOTS[tpl.kind]
    if unknown:
        raise RefbenchError(
            f"template {tpl.template_id}: unknown slot(s) "
            f"{', '.join('{' + s + '}' for s in sorted(unknown))}",
            code=E_TEMPLATE, path=path,
        )


Filled = tuple[list[Token], dict[str, tuple[int, int]]]


def fill(
    tpl: Template,
    values: Mapping[str, Sequence[Token] | Filled],
    *,
    sentence_start: bool = True,
) -> Filled:
    """Fill the slots; return the tokens and each slot's ``[start, end)`` token span.

    A value may itself be a filled template (tokens and spans), whose spans are carried over
    with their offsets shifted, so nested mentions keep exact positions.
    """
    tokens: list[Token] = []
    spans: dict[str, tuple[int, int]] = {}
    article_at: list[int] = []
    for part in tpl.parts:
        if isinstance(part, tuple):
            tokens.append(part)
            continue
        if part == A_AN:
            article_at.append(len(tokens))
            tokens.append(("a", "DT"))
            continue
        value = values[part]
        start = len(tokens)
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], dict):
            inner_tokens, inner_spans = value
            for name, (s, e) in inner_spans.items():
                spans[name] = (start + s, start + e)
            tokens.extend(inner_tokens)
        else:
            tokens.extend(value)
        spans[part] = (start, len(tokens))
    for i in article_at:
        if i + 1 >= len(tokens):
            raise RefbenchError(f"template {tpl.template_id}: {{a_an}} ends the sentence",
                                code=E_TEMPLATE)
        tokens[i] = (indefinite_article(tokens[i + 1][0]), "DT")
    if sentence_start and tokens:
        word, tag = tokens[0]
        tokens[0] = (capitalize_first(word), tag)
    return tokens, spans
