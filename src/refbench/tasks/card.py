"""A benchmark's card: what it is, which version of it refbench implements, where the release
comes from, its licence, what to cite, and what a user must know about the release.

It is a data file in the task's folder, ``card.toml``, and the one source of these facts: the
Hugging Face and lm-eval exports, the documentation's task catalogue and ``refbench ls`` read
it; no Python attribute repeats it. ``schema`` versions the file's layout; ``[task].version``
is the benchmark's version in refbench (bumped when its reading or scoring changes what a
figure means), recorded in every result as ``task_version``.

A task without a ``card.toml`` (a quick plugin) gets a card from its class attributes that
says its licence is unknown rather than guessing one.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refbench.core.errors import E_RESOURCE, RefbenchError

CARD_FILE = "card.toml"
SCHEMA = 1
#: What a catalogue page may say, in its order: the opening paragraph, then one row each of
#: its table, then sections of Markdown, then the release's known defects.
CATALOGUE_KEYS = ("about", "source", "licence", "citation", "formats_read", "formats_written",
                  "metrics", "tools", "sections", "known_defects")
UNKNOWN_NOTE = "The licence is not recorded in refbench: state it before publishing."


@dataclass(frozen=True)
class Card:
    name: str
    version: int
    title: str
    summary: str
    pretty_name: str
    #: A Hugging Face Hub licence identifier (``mit``, ``apache-2.0``, ``cc-by-sa-3.0``), or
    #: ``unknown``.
    licence: str = "unknown"
    #: The paper, as one line (authors, title, venue, year).
    citation: str = "See the benchmark's paper."
    bibtex: str = ""
    #: Where the release comes from (a repository, a command).
    source: str = "unknown"
    source_datasets: tuple[str, ...] = ("original",)
    annotations_creators: tuple[str, ...] = ("found",)
    #: The Hub's ``task_categories`` of an export.
    task_categories: tuple[str, ...] = ("token-classification",)
    #: What a user of the data must know (corrected gold, share-alike, field names).
    notes: str = ""
    #: The documentation's catalogue page (:data:`CATALOGUE_KEYS`: Markdown texts, and
    #: ``known_defects``, a list of them).
    catalogue: dict[str, Any] = field(default_factory=dict)
    #: The file the card was read from (None: built from class attributes).
    path: Path | None = None

    @property
    def versioned_name(self) -> str:
        """``name.vN``: the registry name with its version (``kitmus.v1``)."""
        return f"{self.name}.v{self.version}"


def read_card(path: Path) -> Card:
    """Read and check a ``card.toml``; RefbenchError naming the file and key when malformed."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RefbenchError(f"not a readable task card: {exc}", code=E_RESOURCE,
                            path=path) from None
    if data.get("schema") != SCHEMA:
        raise RefbenchError(f"task card schema {data.get('schema')!r}; this refbench reads "
                            f"schema {SCHEMA}", code=E_RESOURCE, path=path)
    task, card = _table(data, "task", path), _table(data, "card", path)
    return Card(
        name=_text(task, "name", path), version=_integer(task, "version", path),
        title=_text(task, "title", path), summary=_text(task, "summary", path),
        pretty_name=_text(card, "pretty_name", path),
        licence=_text(card, "licence", path), citation=_text(card, "citation", path),
        bibtex=str(card.get("bibtex", "")).strip(), source=_text(card, "source", path),
        source_datasets=_texts(card, "source_datasets", path, ("original",)),
        annotations_creators=_texts(card, "annotations_creators", path, ("found",)),
        task_categories=_texts(card, "task_categories", path, ("token-classification",)),
        notes=" ".join(str(card.get("notes", "")).split()),
        catalogue=_catalogue(data.get("catalogue", {}), path), path=path)


def attribute_card(name: str, title: str, summary: str, version: int) -> Card:
    """The card of a task that has no ``card.toml``."""
    return Card(name=name, version=version, title=title or name, summary=summary,
                pretty_name=title or name, notes=UNKNOWN_NOTE)


def _catalogue(table: Any, path: Path) -> dict[str, Any]:
    if not isinstance(table, dict) or set(table) - set(CATALOGUE_KEYS):
        unknown = sorted(set(table) - set(CATALOGUE_KEYS)) if isinstance(table, dict) else []
        raise RefbenchError(f"task card: [catalogue] takes {', '.join(CATALOGUE_KEYS)}"
                            + (f", not {', '.join(unknown)}" if unknown else ""),
                            code=E_RESOURCE, path=path)
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key == "known_defects":
            out[key] = tuple(d.strip() for d in _texts(table, key, path, ()))
        elif isinstance(value, str):
            out[key] = value.strip()
        else:
            raise RefbenchError(f"task card: catalogue.{key} must be a string",
                                code=E_RESOURCE, path=path)
    return out


def _table(data: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    table = data.get(key)
    if not isinstance(table, dict):
        raise RefbenchError(f"task card has no [{key}] table", code=E_RESOURCE, path=path)
    return table


def _text(table: dict[str, Any], key: str, path: Path) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RefbenchError(f"task card: {key} must be a non-empty string", code=E_RESOURCE,
                            path=path)
    return " ".join(value.split())


def _integer(table: dict[str, Any], key: str, path: Path) -> int:
    value = table.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise RefbenchError(f"task card: {key} must be a positive integer", code=E_RESOURCE,
                            path=path)
    return value


def _texts(table: dict[str, Any], key: str, path: Path, default: tuple[str, ...]
           ) -> tuple[str, ...]:
    value = table.get(key, list(default))
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RefbenchError(f"task card: {key} must be a list of strings", code=E_RESOURCE,
                            path=path)
    return tuple(value)
