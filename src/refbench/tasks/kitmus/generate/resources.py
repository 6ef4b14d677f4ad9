"""KITMUS resource pools: the in-memory model and the reader for refbench's own layout.

Layout of a refbench resource folder (the built-in one is ``refbench/tasks/kitmus/data``)::

    names.txt            one entity name per line
    occupations.tsv      id, occupation_real, occupation_charfict,
                         situation_real, situation_charfict, situation_wordfict   (tagged text)
    locations.tsv        kind, location                                           (tagged text)
    noise/<kind>.txt     one tagged noise sentence per line, for each location kind
    pronouns.tsv         form, be, weight
    templates.json       templates per sentence type (tagged text with {slots})

"Tagged text" is whitespace-separated ``word/TAG`` tokens with Penn Treebank tags. Files are
data, read by code: nothing is ever evaluated. Columns that a custom resource set leaves empty
simply make the variants that need them unavailable.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, ResourceError
from refbench.core.io import contained_path, load_json, read_lines
from refbench.formats.tsv import read_tsv
from refbench.tasks.kitmus.generate.templates import Template, parse_template

Token = tuple[str, str]
Tagged = tuple[Token, ...]

BUILTIN_DIR = Path(__file__).parent.parent / "data"
OCCUPATION_SOURCES = ("real", "charfict")
SITUATION_SOURCES = ("real", "charfict", "wordfict")
TEMPLATE_TYPES = ("meet", "pronoun", "entity_knowledge", "background_knowledge")


@dataclass(frozen=True)
class Location:
    kind: str
    tokens: Tagged


@dataclass(frozen=True)
class Pronoun:
    form: str
    be: str
    weight: float


@dataclass(frozen=True)
class Resources:
    """Every pool the generator draws from. Occupation row ``i`` of every source is aligned."""

    names: tuple[str, ...]
    occupations: dict[str, tuple[Tagged, ...]]
    situations: dict[str, tuple[Tagged, ...]]
    locations: tuple[Location, ...]
    noise: dict[str, tuple[Tagged, ...]]
    pronouns: tuple[Pronoun, ...]
    templates: dict[str, tuple[Template, ...]]
    mention_templates: dict[int, Template]
    source: str = "builtin"
    files: dict[str, str] = field(default_factory=dict)  # relative path -> sha256

    @property
    def n_occupations(self) -> int:
        return len(self.occupations["real"]) if "real" in self.occupations else 0

    def fingerprint(self) -> str:
        h = hashlib.sha256()
        for name in sorted(self.files):
            h.update(f"{name}\0{self.files[name]}\0".encode())
        return h.hexdigest()


def parse_tagged(text: str, *, path: Path | str, line: int) -> Tagged:
    """Parse ``word/TAG word/TAG`` into tokens; a token without a tag is an error."""
    tokens: list[Token] = []
    for item in text.split():
        word, sep, tag = item.rpartition("/")
        if not sep or not word or not tag:
            raise ResourceError(f"token {item!r} is not of the form word/TAG", path=path, line=line)
        tokens.append((word, tag))
    if not tokens:
        raise ResourceError("empty token list", path=path, line=line)
    return tuple(tokens)


def format_tagged(tokens: Tagged) -> str:
    return " ".join(f"{w}/{t}" for w, t in tokens)


def _read_tsv(path: Path, columns: list[str]) -> list[tuple[int, dict[str, str]]]:
    return read_tsv(path, required=columns)[1]


def resource_json(path: Path, what: str) -> Any:
    """A resource's JSON document; any problem reading it is a resource error (E200)."""
    try:
        return load_json(path)
    except RefbenchError as exc:
        raise ResourceError(f"cannot read {what}: {exc.message}", path=path,
                            line=exc.line) from None


def resource_hash(path: Path) -> str:
    """The file's sha256 (resources are fingerprinted); an unreadable file is a resource
    error naming it."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise ResourceError(f"cannot read ({exc.strerror or exc})", path=path) from None


def load_native(directory: str | Path) -> Resources:
    """Read a resource folder in refbench's layout, validating every line."""
    root = Path(directory)
    if not root.is_dir():
        raise ResourceError("resource folder not found", path=root)
    files: dict[str, str] = {}

    def need(rel: str) -> Path:
        p = root / rel
        if not p.is_file():
            raise ResourceError("required resource file is missing", path=p)
        files[rel] = resource_hash(p)
        return p

    names_path = need("names.txt")
    names: list[tuple[int, str]] = []
    for number, line in read_lines(names_path):
        name = line.strip()
        if not name:
            continue
        if any(ch in name for ch in "/\t") or not name[0].isalpha():
            raise ResourceError(f"not a usable name: {name!r}", path=names_path, line=number)
        names.append((number, name))

    occ_path = need("occupations.tsv")
    occ_cols = [f"occupation_{s}" for s in OCCUPATION_SOURCES]
    sit_cols = [f"situation_{s}" for s in SITUATION_SOURCES]
    occ_rows = _read_tsv(occ_path, ["id", "occupation_real", "situation_real"])
    occupations: dict[str, list[Tagged]] = {}
    situations: dict[str, list[Tagged]] = {}
    for col, store in [*((c, occupations) for c in occ_cols), *((c, situations) for c in sit_cols)]:
        source = col.split("_", 1)[1]
        values = [row.get(col, "").strip() for _, row in occ_rows]
        if not any(values):
            continue
        parsed = []
        for (number, _), value in zip(occ_rows, values, strict=True):
            if not value:
                raise ResourceError(f"column {col} is empty", path=occ_path, line=number)
            parsed.append(parse_tagged(value, path=occ_path, line=number))
        store[source] = parsed

    loc_path = need("locations.tsv")
    locations = [
        Location(row["kind"].strip(), parse_tagged(row["location"], path=loc_path, line=number))
        for number, row in _read_tsv(loc_path, ["kind", "location"])
    ]
    noise: dict[str, tuple[Tagged, ...]] = {}
    for kind in sorted({loc.kind for loc in locations}):
        rel = f"noise/{kind}.txt"
        try:  # the kind comes from a data file: it must name a file inside noise/
            contained_path(root / "noise", f"{kind}.txt", what="noise file")
        except RefbenchError as exc:
            raise ResourceError(f"location kind {kind!r}: {exc.message}", path=loc_path) from None
        p = need(rel)
        noise[kind] = tuple(
            parse_tagged(line, path=p, line=number)
            for number, line in read_lines(p)
            if line.strip()
        )

    pron_path = need("pronouns.tsv")
    pronouns = []
    for number, row in _read_tsv(pron_path, ["form", "be", "weight"]):
        try:
            weight = float(row["weight"])
        except ValueError:
            raise ResourceError(f"weight {row['weight']!r} is not a number",
                                path=pron_path, line=number) from None
        pronouns.append(Pronoun(row["form"].strip(), row["be"].strip(), weight))

    tpl_path = need("templates.json")
    templates, mention_templates = _load_templates_json(tpl_path)
    return make_resources(
        names=names, names_path=names_path,
        occupations={k: tuple(v) for k, v in occupations.items()},
        situations={k: tuple(v) for k, v in situations.items()},
        locations=tuple(locations), noise=noise, pronouns=tuple(pronouns),
        templates=templates, mention_templates=mention_templates, root=root, files=files)


def _load_templates_json(path: Path) -> tuple[dict[str, tuple[Template, ...]], dict[int, Template]]:
    raw = resource_json(path, "templates")
    if not isinstance(raw, dict):
        raise ResourceError("expected a JSON object of template lists", path=path)
    templates: dict[str, tuple[Template, ...]] = {}
    for kind in TEMPLATE_TYPES:
        items = raw.get(kind)
        if not isinstance(items, list) or not items:
            raise ResourceError(f"needs a non-empty list {kind!r}", path=path)
        parsed = []
        for i, item in enumerate(items):
            if not isinstance(item, dict) or "tokens" not in item:
                raise ResourceError(f"{kind}[{i}] needs 'id' and 'tokens'", path=path)
            parsed.append(parse_template(str(item["tokens"]), kind=kind,
                                         template_id=str(item.get("id", f"{kind}-{i + 1:02d}")),
                                         path=path))
        templates[kind] = tuple(parsed)
    mentions_raw = raw.get("mentions")
    if not isinstance(mentions_raw, dict):
        raise ResourceError("needs an object 'mentions' with templates for 2, 3 and 4 entities",
                            path=path)
    mention_templates = {
        entity_count(k, path=path): parse_template(str(v), kind="mentions",
                                                   template_id=f"mentions-{k}", path=path)
        for k, v in mentions_raw.items()
    }
    return templates, mention_templates


def entity_count(key: str, *, path: Path) -> int:
    """The number of entities a mention template is for, from its key (``3`` or ``3_ents``)."""
    head = str(key).split("_", 1)[0]
    if not head.isdigit() or int(head) < 2:
        raise ResourceError(f"mention template key {key!r} must start with the number of "
                            "entities (2, 3, ...)", path=path)
    return int(head)


def make_resources(*, names: Sequence[tuple[int, str]], names_path: Path,
                   occupations: dict[str, tuple[Tagged, ...]],
                   situations: dict[str, tuple[Tagged, ...]], locations: tuple[Location, ...],
                   noise: dict[str, tuple[Tagged, ...]], pronouns: tuple[Pronoun, ...],
                   templates: dict[str, tuple[Template, ...]],
                   mention_templates: dict[int, Template], root: Path,
                   files: dict[str, str]) -> Resources:
    """The one place every layout's loader builds its :class:`Resources` and has it checked:
    ``names`` as (line, name) of ``names_path``, so a repeated name is refused naming both
    lines (two entities of one instance could otherwise share a name, whichever splits and
    sizes are generated), then the cross-file checks (:func:`validate_resources`)."""
    first: dict[str, int] = {}
    for line, name in names:
        if name in first:
            raise ResourceError(f"the name {name!r} occurs twice (also on line {first[name]}); "
                                "every name must be unique, or two entities of an instance "
                                "can share it", path=names_path, line=line)
        first[name] = line
    return validate_resources(Resources(
        names=tuple(n for _, n in names), occupations=occupations, situations=situations,
        locations=locations, noise=noise, pronouns=pronouns, templates=templates,
        mention_templates=mention_templates, source=str(root), files=files), path=root)


def validate_resources(res: Resources, *, path: Path | str) -> Resources:
    """Cross-file checks shared by every layout (:func:`make_resources` runs them)."""
    if "real" not in res.occupations or "real" not in res.situations:
        raise ResourceError("real occupations and situations are required", path=path)
    n = res.n_occupations
    for store in (res.occupations, res.situations):
        for source, rows in store.items():
            if len(rows) != n:
                raise ResourceError(
                    f"{source} has {len(rows)} rows but there are {n} real occupations; "
                    "rows must be aligned", path=path)
    if not res.pronouns or sum(p.weight for p in res.pronouns) <= 0:
        raise ResourceError("the pronoun table needs positive weights", path=path)
    for kind in {loc.kind for loc in res.locations}:
        if not res.noise.get(kind):
            raise ResourceError(f"location kind {kind!r} has no noise sentences", path=path)
    return res


def load_resources(directory: str | Path | None = None) -> Resources:
    """Load the built-in pools, or a folder in one of the registered layouts (refbench's, or
    the official release's, told apart by its ``vocab.json`` and ``occupations/``)."""
    if directory is None:
        return load_native(BUILTIN_DIR)
    root = Path(directory)
    from refbench.tasks.kitmus.registries import RESOURCE_LAYOUTS

    official = (root / "vocab.json").is_file() and (root / "occupations").is_dir()
    loader: Any = RESOURCE_LAYOUTS.get("official" if official else "refbench").load()
    resources: Resources = loader(root)
    return resources
