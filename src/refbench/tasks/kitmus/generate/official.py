"""Reader for the official KITMUS resource layout (names.csv, locations.csv, vocab.json, ...).

The official generator ``eval``s its token lists. Here they are parsed with
:func:`ast.literal_eval`, which accepts Python literals only and never runs code, and each value
is checked to be a list of ``(word, tag)`` string pairs. A malformed line names file and line.
"""

from __future__ import annotations

import ast
import csv
from pathlib import Path

from refbench.core.errors import RefbenchError, ResourceError
from refbench.core.io import contained_path, open_text, read_lines
from refbench.formats.tsv import allow_long_fields
from refbench.tasks.kitmus.generate.resources import (
    Location,
    Pronoun,
    Resources,
    Tagged,
    entity_count,
    make_resources,
    resource_hash,
    resource_json,
)
from refbench.tasks.kitmus.generate.templates import Template, parse_template

_SLOT_NAMES = {
    "entity_mention": "entity",
    "entity_occupation": "occupation",
    "occupation_description": "situation",
    "a_an": "a_an",
    "location": "location",
    "mentions": "mentions",
    "pronoun": "pronoun",
    "be": "be",
    "situation": "situation",
}
_TEMPLATE_FILES = {
    "meet": "meet_sentence.txt",
    "pronoun": "pronoun_sentence.txt",
    "entity_knowledge": "entspec_knowledge_sentence.txt",
    "background_knowledge": "background_knowledge_sentence.txt",
}
_OCCUPATION_FILES = {
    # source of the occupation name / of the situation -> file providing it
    ("occupation", "real"): "real_real.csv",
    ("occupation", "charfict"): "charfict_real.csv",
    ("situation", "real"): "real_real.csv",
    ("situation", "charfict"): "real_charfict.csv",
    ("situation", "wordfict"): "real_wordfict.csv",
}


def parse_token_list(text: str, *, path: Path, line: int) -> Tagged:
    """Parse ``[('word', 'TAG'), ...]`` safely; anything else is a ResourceError."""
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise ResourceError("not a list of (word, tag) tuples", path=path, line=line) from None
    if not isinstance(value, list | tuple) or not value:
        raise ResourceError("expected a non-empty list of (word, tag) tuples", path=path, line=line)
    tokens = []
    for item in value:
        if (
            not isinstance(item, list | tuple)
            or len(item) != 2
            or not all(isinstance(x, str) and x for x in item)
        ):
            raise ResourceError(f"bad token {item!r}: expected ('word', 'TAG')", path=path,
                                line=line)
        tokens.append((item[0], item[1]))
    return tuple(tokens)


def _csv_rows(path: Path, columns: list[str]) -> list[tuple[int, dict[str, str]]]:
    if not path.is_file():
        raise ResourceError("required resource file is missing", path=path)
    allow_long_fields()
    with open_text(path) as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            raise ResourceError("file is empty", path=path) from None
        except csv.Error as exc:
            raise ResourceError(f"not a CSV file ({exc})", path=path, line=1) from None
        missing = [c for c in columns if c not in header]
        if missing:
            raise ResourceError(f"header lacks column(s) {', '.join(missing)}", path=path, line=1)
        rows = []
        try:
            for cells in reader:
                if not cells:
                    continue
                if len(cells) != len(header):
                    raise ResourceError(
                        f"expected {len(header)} columns, found {len(cells)}",
                        path=path, line=reader.line_num,
                    )
                rows.append((reader.line_num, dict(zip(header, cells, strict=True))))
        except csv.Error as exc:
            raise ResourceError(f"not a CSV row ({exc})", path=path,
                                line=reader.line_num) from None
    return rows


def _convert_template(raw: str, *, vocab: dict[str, tuple[str, str]], kind: str,
                      template_id: str, path: Path, line: int) -> Template:
    inner = raw.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        raise ResourceError("template must look like [{slot}, {slot}, ...]", path=path, line=line)
    items = [x.strip() for x in inner[1:-1].split(",") if x.strip()]
    out: list[str] = []
    for item in items:
        if not (item.startswith("{") and item.endswith("}")):
            raise ResourceError(f"{item!r} is not a {{slot}}", path=path, line=line)
        name = item[1:-1]
        if name.isdigit() or name in _SLOT_NAMES:
            out.append("{" + _SLOT_NAMES.get(name, name) + "}")
        elif name in vocab:
            word, tag = vocab[name]
            out.append(f"{word}/{tag}")
        else:
            raise ResourceError(f"slot {{{name}}} is neither a known slot nor in vocab.json",
                                path=path, line=line)
    try:
        return parse_template(" ".join(out), kind=kind, template_id=template_id, path=path)
    except ResourceError:
        raise
    except Exception as exc:  # a RefbenchError without the line: add it
        raise ResourceError(str(getattr(exc, "message", exc)), path=path, line=line) from None


def load_official(directory: str | Path) -> Resources:
    root = Path(directory)
    files: dict[str, str] = {}

    def seen(p: Path) -> Path:
        if p.is_file():
            files[str(p.relative_to(root))] = resource_hash(p)
        return p

    names_path = seen(root / "names.csv")
    names = [(number, row["lastname"].strip()) for number, row in
             _csv_rows(names_path, ["lastname"]) if row["lastname"].strip()]

    vocab_path = seen(root / "vocab.json")
    vocab_raw = resource_json(vocab_path, "the vocabulary")
    if not isinstance(vocab_raw, dict):
        raise ResourceError("expected an object of entries {name: [word, tag]}",
                            path=vocab_path)
    vocab = {}
    for key, value in vocab_raw.items():
        if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str)
                                                                    for v in value)):
            raise ResourceError(f"entry {key!r} must be [word, tag]", path=vocab_path)
        vocab[key] = (value[0], value[1])

    occupations: dict[str, tuple[Tagged, ...]] = {}
    situations: dict[str, tuple[Tagged, ...]] = {}
    for (what, source), fname in _OCCUPATION_FILES.items():
        p = seen(root / "occupations" / fname)
        if not p.is_file():
            if source == "real":
                raise ResourceError("required resource file is missing", path=p)
            continue
        rows = _csv_rows(p, ["occupation", "occupation_description"])
        if what == "occupation":
            occupations[source] = tuple(
                tuple((w, "NN") for w in row["occupation"].split()) for _, row in rows
            )
        else:
            situations[source] = tuple(
                parse_token_list(row["occupation_description"], path=p, line=n)
                for n, row in rows
            )

    locations: list[Location] = []
    noise: dict[str, tuple[Tagged, ...]] = {}
    loc_path = seen(root / "locations.csv")
    for number, row in _csv_rows(loc_path, ["location", "noise_fp"]):
        kind = Path(row["noise_fp"]).stem
        locations.append(Location(kind, parse_token_list(row["location"], path=loc_path,
                                                         line=number)))
        if kind not in noise:
            try:  # a path read from a data file must stay inside the resource folder
                npath = seen(contained_path(root, row["noise_fp"], what="noise file"))
            except RefbenchError as exc:
                raise ResourceError(exc.message, path=loc_path, line=number) from None
            if not npath.is_file():
                raise ResourceError(f"noise file {row['noise_fp']!r} not found", path=loc_path,
                                    line=number)
            noise[kind] = tuple(
                parse_token_list(text, path=npath, line=n)
                for n, text in read_lines(npath) if text.strip()
            )

    pron_path = seen(root / "pronouns.json")
    pron_raw = resource_json(pron_path, "the pronoun table")
    try:
        table = pron_raw["pronouns"]
        pronouns = tuple(Pronoun(form, be, float(weight)) for weight, form, be in table
                         if isinstance(form, str) and isinstance(be, str)
                         and not isinstance(weight, bool))
        if len(pronouns) != len(table):
            raise TypeError("a row is not [weight, form, be]")
    except (KeyError, TypeError, ValueError) as exc:
        raise ResourceError(f"expected {{'pronouns': [[weight, form, be], ...]}} ({exc})",
                            path=pron_path) from None

    templates: dict[str, tuple[Template, ...]] = {}
    for kind, fname in _TEMPLATE_FILES.items():
        p = seen(root / "templates" / fname)
        if not p.is_file():
            raise ResourceError("required resource file is missing", path=p)
        templates[kind] = tuple(
            _convert_template(text, vocab=vocab, kind=kind,
                              template_id=f"{kind}-{i + 1:02d}", path=p, line=n)
            for i, (n, text) in enumerate((n, t) for n, t in read_lines(p) if t.strip())
        )
    mpath = seen(root / "templates" / "entity_mention_templates.json")
    mraw = resource_json(mpath, "the mention templates")
    if not isinstance(mraw, dict) or not all(isinstance(v, str) for v in mraw.values()):
        raise ResourceError("expected an object {'<n>_ents': '[{slot}, ...]'}", path=mpath)
    mention_templates = {
        entity_count(key, path=mpath): _convert_template(
            value, vocab=vocab, kind="mentions", template_id=f"mentions-{key.split('_', 1)[0]}",
            path=mpath, line=1)
        for key, value in mraw.items()
    }
    return make_resources(
        names=names, names_path=names_path, occupations=occupations, situations=situations,
        locations=tuple(locations), noise=noise, pronouns=pronouns, templates=templates,
        mention_templates=mention_templates, root=root, files=files)
