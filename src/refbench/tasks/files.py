"""What format sniffers see of a data file (:class:`FileHead`), and the split a file's name
says it holds: shared by every task's :meth:`~refbench.tasks.base.Task.sniff` and
:meth:`~refbench.tasks.base.Task.infer_split` (import them from :mod:`refbench.tasks.base`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from refbench.core.inputs import format_name, open_text, parse_json_line


class FileHead:
    """The start of a data file, read once and shared by every task's :meth:`Task.sniff`.

    ``name`` is the file name without ``.gz``/``.bz2``; ``first`` the first non-empty line,
    ``second`` the file's second line; ``text`` the first 4 KiB; ``json`` the first line
    parsed as a JSON object (``{}`` when the file is not ``.jsonl`` or the line is no object).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = format_name(path)
        with open_text(path) as fh:
            self.text = fh.read(4096)
        with open_text(path) as fh:
            self.first = next((line for line in fh if line.strip()), "")
        with open_text(path) as fh:
            fh.readline()
            self.second = fh.readline()
        self._json: dict[str, Any] | None = None

    @property
    def json(self) -> dict[str, Any]:
        """The first line as a JSON object (a JSONL file's first record); ``{}`` otherwise.
        A ``.jsonl`` whose first line is not JSON fails here, naming the file and line 1."""
        if self._json is None:
            obj: Any = {}
            if self.name.endswith(".jsonl") and self.first.strip():
                obj = parse_json_line(self.first, path=self.path, number=1)
            self._json = obj if isinstance(obj, dict) else {}
        return self._json

    def tsv_columns(self) -> list[str]:
        return self.first.rstrip("\r\n").split("\t")


SPLIT_WORDS = {"train": "train", "training": "train", "dev": "dev", "development": "dev",
               "val": "validation", "valid": "validation", "validation": "validation",
               "test": "test"}
# Sets released as one test split, whose files do not say so.
TEST_ONLY = ("wsc273", "wsc285", "wsc")


def split_from_name(path: str | Path) -> str | None:
    """The split a data file holds, from its name or its folder (``gap-test.tsv``,
    ``books/test.json.gz``, ``winogrande-dev.jsonl``; WSC273 is a test set); None when
    neither says."""
    p = Path(path)
    if format_name(p).split(".")[0].lower() in TEST_ONLY:
        return "test"
    for part in (format_name(p), p.parent.name):
        words = [w.lower() for w in re.split(r"[^A-Za-z]+", part) if w]
        found = [SPLIT_WORDS[w] for w in words if w in SPLIT_WORDS]
        if found:
            return found[-1]
    return None
