"""File input and output in one import: checked reading (:mod:`refbench.core.inputs`), atomic
all-or-nothing writing (:mod:`refbench.core.outputs`), JSON Lines and content hashes.

Every reader in refbench opens files through :func:`open_text`, so ``.gz`` and ``.bz2`` inputs work
everywhere and every unusable input is one clear error. Every writer goes through
:func:`atomic_write`, :func:`atomic_path` or :func:`prepare_output_dir`: a crash or a bad input
never leaves a half-written file or folder behind.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from refbench.core.inputs import (
    TextReader,
    check_input_file,
    contained_path,
    format_name,
    json_type,
    load_json,
    load_json_list,
    load_json_object,
    open_binary,
    open_text,
    read_jsonl,
    read_lines,
    read_text,
)
from refbench.core.output_checks import check_output_dir, check_output_file, output_error
from refbench.core.outputs import (
    LineWriter,
    atomic_path,
    atomic_write,
    commit_output_dir,
    discard_output_dir,
    output_group,
    prepare_output_dir,
    torch_save_atomic,
    write_text_atomic,
)

__all__ = [
    "LineWriter", "TextReader", "atomic_path", "atomic_write", "check_input_file",
    "check_output_dir", "check_output_file", "commit_output_dir", "contained_path",
    "discard_output_dir", "dumps_jsonl", "finite", "format_name", "json_text", "json_type",
    "load_json", "load_json_list", "load_json_object", "open_binary", "open_text",
    "output_error", "output_group", "prepare_output_dir", "read_jsonl", "read_lines",
    "read_text", "sha256_file", "sha256_texts", "torch_save_atomic", "write_text_atomic",
]


def finite(obj: Any) -> Any:
    """``obj`` with every NaN or infinite float replaced by None (JSON null).

    Python's json module writes NaN as a bare ``NaN``, which is not JSON: a result with an
    undefined figure (an empty slice, a ratio over nothing) must still be valid JSON.
    """
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    return obj


def json_text(obj: Any, *, indent: int | None = None) -> str:
    """Valid JSON for a result (non-finite floats as null, UTF-8 kept as is)."""
    return json.dumps(finite(obj), ensure_ascii=False, indent=indent, allow_nan=False,
                      default=str)


def dumps_jsonl(obj: Any) -> str:
    """One canonical JSON line (stable key order given by the caller, no NaN, UTF-8)."""
    return json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sha256_texts(items: Iterable[str]) -> str:
    h = hashlib.sha256()
    for item in items:
        h.update(item.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()
