"""Generating new alternative questions: entity pairs by the paper's sampling methods.

Methods (section 3.4.2): ``uniform``; ``same-name`` (same title, different disambiguation in
parentheses); ``similar-title`` (character edit distance <= 3 between titles, not identical);
``similar-description`` (nearest neighbour by MiniLM embedding of the description);
``similar-infobox`` (entities sharing infobox attributes: {type} and {type, country} for
recipes, {genre}, {artist} and {genre, artist} for music; ``--attributes`` picks a set).
Each pair becomes "Do you mean 'A' or 'B'?" with one of the domain's opening utterances.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.io import format_name, read_jsonl
from refbench.core.records import Record, Where

METHODS = ("uniform", "same-name", "similar-title", "similar-description", "similar-infobox")
# The labels the released data uses for each method (its sampling_method field).
RELEASE_LABELS = {"uniform": "UNIFORM", "same-name": "SAME_NAME", "similar-title": "SIMILAR_NAME",
                  "similar-description": "SIMILAR_DESCRIPTION",
                  "similar-infobox": "SAME_INFOBOXES"}
DEFAULT_ATTRIBUTES: dict[str, list[tuple[str, ...]]] = {"RECIPES": [("type",), ("type", "country")],
                      "SONGS": [("genre",), ("artist",), ("genre", "artist")],
                      "BOOKS": [("genre",), ("author",)]}
_PAREN = re.compile(r"^(.*?)\s*\(([^()]*)\)\s*$")


@dataclass(frozen=True)
class Entity:
    name: str
    description: str
    infobox: dict[str, str]
    domain: str
    key: str


def parse_infobox(value: Any) -> dict[str, str]:
    """A dict, or the release's flattened ``key: value. key: value`` string."""
    if isinstance(value, dict):
        return {str(k).lower(): str(v).strip().lower() for k, v in value.items()}
    out: dict[str, str] = {}
    for part in re.split(r"\.\s+(?=[a-z_ ]+:)", str(value or "")):
        key, sep, val = part.partition(":")
        if sep and key.strip() and val.strip():
            out[key.strip().lower()] = val.strip().rstrip(".").lower()
    return out


def base_title(name: str) -> tuple[str, str | None]:
    m = _PAREN.match(name)
    return (m.group(1), m.group(2)) if m else (name, None)


def edit_distance(a: str, b: str, limit: int = 4) -> int:
    """Levenshtein distance, stopping early once it exceeds ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        if min(cur) > limit:
            return limit + 1
        prev = cur
    return prev[-1]


def load_entities(paths: Sequence[Path], *, domain: str | None = None) -> list[Entity]:
    """Entities from JSONL (name, description, infobox[, domain]) or AltEntities JSON files."""
    seen: dict[str, Entity] = {}
    for p in paths:
        name = format_name(p)
        if name.endswith(".jsonl"):
            for line, obj in read_jsonl(p):
                rec = Record(obj, Where(p, line))
                infobox = rec.raw("infobox", None)
                if not isinstance(infobox, dict | str | None):
                    raise rec.where.error("field 'infobox': expected an object or a string")
                name = rec.string("name", nonempty=True)
                e = Entity(name, rec.string("description", None) or "", parse_infobox(infobox),
                           (rec.string("domain", None) or domain or "BOOKS").upper(),
                           rec.string("wikipedia_url", None) or name)
                seen.setdefault(e.key, e)
        else:
            from refbench.tasks.altentities.check import entity_key, load_questions

            for q in load_questions(p):
                for c in q.get("choices", []):
                    e = Entity(str(c["name"]), str(c.get("description", "")),
                               parse_infobox(c.get("infobox")), str(q.get("domain")).upper(),
                               entity_key(c))
                    seen.setdefault(e.key, e)
    ents = sorted(seen.values(), key=lambda e: e.key)
    if domain:
        ents = [e for e in ents if e.domain == domain.upper()]
    if len(ents) < 2:
        where = f" of domain {domain.upper()}" if domain else ""
        raise RefbenchError(f"need at least two entities{where} to sample pairs, found "
                            f"{len(ents)} in {', '.join(str(p) for p in paths)}")
    return ents


def _pairs(ents: list[Entity], method: str, rng: random.Random,
           attributes: Sequence[str] | None) -> list[tuple[Entity, Entity, str]]:
    if method == "uniform":
        out = []
        for _ in range(len(ents) * 2):
            a, b = rng.sample(ents, 2)
            out.append((a, b, ""))
        return out
    if method == "same-name":
        groups: dict[str, list[Entity]] = defaultdict(list)
        for e in ents:
            title, paren = base_title(e.name)
            if paren:
                groups[title.lower()].append(e)
        return [(a, b, f"title {t!r}") for t, g in sorted(groups.items())
                for i, a in enumerate(g) for b in g[i + 1:]]
    if method == "similar-title":
        out = []
        titles = [e.name.lower() for e in ents]
        for i in range(len(ents)):
            for j in range(i + 1, len(ents)):
                d = edit_distance(titles[i], titles[j], 3)
                if 0 < d <= 3:
                    out.append((ents[i], ents[j], f"edit distance {d}"))
        return out
    if method == "similar-description":
        from refbench.nlp.encoder import SentenceEncoder

        enc = SentenceEncoder()
        emb = enc.encode([e.description or e.name for e in ents])
        sims = emb @ emb.T
        sims.fill_diagonal_(-2.0)
        best = sims.argmax(dim=1).tolist()
        return [(ents[i], ents[j], f"cosine {float(sims[i, j]):.3f}")
                for i, j in enumerate(best)]
    # similar-infobox
    if attributes:
        have = {k for e in ents for k in e.infobox}
        unknown = [a for a in attributes if a not in have]
        if unknown:
            raise UsageError(f"--attributes: no entity's infobox has {', '.join(unknown)} "
                             f"(its attributes: {', '.join(sorted(have)[:15]) or 'none'})")
    sets: list[tuple[str, ...]] = [tuple(attributes)] if attributes else \
        DEFAULT_ATTRIBUTES.get(ents[0].domain, [("genre",)])
    out = []
    for attrs in sets:
        by_values: dict[tuple[str, ...], list[Entity]] = defaultdict(list)
        for e in ents:
            values = [e.infobox.get(a) for a in attrs]
            if all(values):
                by_values[tuple(v for v in values if v)].append(e)
        for key, g in sorted(by_values.items()):
            label = ", ".join(f"{k}={v}" for k, v in zip(attrs, key, strict=True))
            for i, a in enumerate(g):
                for b in g[i + 1:]:
                    out.append((a, b, label))
    return out


def sample_pairs(ents: list[Entity], *, method: str, n: int, seed: int = 0,
                 attributes: Sequence[str] | None = None) -> Iterator[dict[str, Any]]:
    """The questions, checked before the first is written: attributes no entity has, or a
    method that finds no pair, are errors rather than an empty output file."""
    by_label = {v.lower(): k for k, v in RELEASE_LABELS.items()}
    method = by_label.get(method.lower(), method)
    if method not in METHODS:
        raise UsageError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    if attributes and method != "similar-infobox":
        raise UsageError(f"--attributes applies to --method similar-infobox, not {method}")
    rng = random.Random(f"{seed}:{method}")
    openings = json.loads(resources.files("refbench.tasks.altentities").joinpath(
        "data/openings.json").read_text(encoding="utf-8"))
    candidates = _pairs(ents, method, rng, attributes)
    unique: dict[frozenset[str], tuple[Entity, Entity, str]] = {}
    for a, b, why in candidates:
        if a.key != b.key:
            unique.setdefault(frozenset((a.key, b.key)), (a, b, why))
    pool = list(unique.values())
    if not pool:
        raise RefbenchError(f"no pair of the {len(ents)} entities fits --method "
                            f"{RELEASE_LABELS[method]}: nothing to write")
    rng.shuffle(pool)
    return _questions(pool[:n], rng, openings, RELEASE_LABELS[method])


def _questions(pool: list[tuple[Entity, Entity, str]], rng: random.Random,
               openings: dict[str, list[str]], label: str) -> Iterator[dict[str, Any]]:
    for a, b, why in pool:
        if rng.random() < 0.5:
            a, b = b, a
        show_a, show_b = (a.name, b.name) if base_title(a.name)[0] == base_title(b.name)[0] \
            else (base_title(a.name)[0], base_title(b.name)[0])
        yield {
            "domain": a.domain,
            "opening": rng.choice(openings.get(a.domain, openings["BOOKS"])),
            "question": f"Do you mean '{show_a}' or '{show_b}'?",
            "sampling_method": label,
            "why": why,
            "choices": [{"name": e.name, "key": e.key, "description": e.description}
                        for e in (a, b)],
        }


def write_pairs(items: Iterator[dict[str, Any]], out: Path) -> int:
    from refbench.core.io import atomic_write

    n = 0
    with atomic_write(out) as fh:
        for item in items:
            fh.write(json.dumps(item, ensure_ascii=False) + "\n")
            n += 1
    return n
