"""A run folder as a comparable, small JSON object: every JSON file normalised (the places a
run legitimately differs from another run of the same model on the same data: where its
folders are, when it ran, the command line and the git commit), every predictions file as its
sha256 and line count. ``tests/fixtures/runs/run-path.json`` holds main's folders so (made
by ``scripts/regen_run_path.py``); ``tests/runs/test_run_path.py`` compares today's with it."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: Keys whose values say when or from where a run was made, not what it computed.
VOLATILE = {"created": "<time>", "time": "<time>", "command": "<command>",
            "git_hash": "<git>", "python": "<python>"}


def _strings(x: Any, places: Mapping[str, str]) -> Any:
    if isinstance(x, str):
        for path, name in places.items():
            x = x.replace(path, name)
        return x
    if isinstance(x, list):
        return [_strings(v, places) for v in x]
    if isinstance(x, dict):
        return {k: VOLATILE[k] if k in VOLATILE and v is not None else _strings(v, places)
                for k, v in x.items()}
    return x


#: The record's seal (issue 50: sha256 of its predictions, data and record, which names its
#: places and time): checked where a folder is read, then left out of the comparison.
_SEAL_TEXT = re.compile(r',\n  "seal": \{\n(?:    [^\n]*\n)*  \}')


def unsealed(raw: str, data: Any, path: Path) -> tuple[str, Any]:
    """A record's text and JSON without its seal, once the seal is checked (a record without
    one: as it is)."""
    if not isinstance(data, dict) or "seal" not in data:
        return raw, data
    from refbench.core.seal import VERIFIED, verify

    verdict = verify(data, folder=path.parent)
    assert verdict.state == VERIFIED, f"{path}: {verdict.text()}"
    text, n = _SEAL_TEXT.subn("", raw)
    assert n == 1, f"{path}: the seal is not where the writer puts it"
    return text, {k: v for k, v in data.items() if k != "seal"}


_SEAL_LINE = re.compile(r',\s*"seal":\s*\{[^{}]*\}')


def unsealed_line(line: str) -> tuple[str, Any]:
    """A printed record (one JSON line, ``--json``) without its seal: text and JSON."""
    data = json.loads(line)
    if not isinstance(data, dict) or "seal" not in data:
        return line, data
    text, n = _SEAL_LINE.subn("", line)
    assert n == 1, "the printed seal is not where the writer puts it"
    return text, {k: v for k, v in data.items() if k != "seal"}


_VOLATILE_TEXT = re.compile(r'"(' + "|".join(VOLATILE) + r')": "(?:[^"\\]|\\.)*"')


def normalised_text(text: str, places: Mapping[str, str]) -> str:
    """The sha256 of ``text`` (a JSON file as written: key order, indentation and all) with
    the paths of ``places`` and the volatile values replaced: two runs' files byte for byte."""
    for path, name in sorted(places.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(path, name)
    text = _VOLATILE_TEXT.sub(lambda m: f'"{m[1]}": "{VOLATILE[m[1]]}"', text)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def normalised_json(data: Any, places: Mapping[str, str]) -> Any:
    """``data`` with each path of ``places`` (longest first) written as its name and the
    volatile keys as placeholders."""
    ordered = dict(sorted(places.items(), key=lambda kv: -len(kv[0])))
    return _strings(data, ordered)


def normalised_folder(folder: Path, places: Mapping[str, str]) -> dict[str, Any]:
    """Every file under ``folder`` by its relative path: JSON normalised, JSONL by digest."""
    out: dict[str, Any] = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(folder).as_posix()
        raw = path.read_bytes()
        if path.suffix == ".json":
            text, data = unsealed(raw.decode("utf-8"), json.loads(raw), path)
            out[rel] = {"json": normalised_json(data, places),
                        "text_sha256": normalised_text(text, places)}
        else:
            out[rel] = {"sha256": hashlib.sha256(raw).hexdigest(),
                        "lines": raw.count(b"\n")}
    return out
