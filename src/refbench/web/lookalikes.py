"""Files that look like data but are a system's answers: an e2e-coref ``.jsonlines`` file whose
documents are those of another data file served (the same keys and words, in the same order)
with other clusters is what a coreference system predicted for that file (KITMUS's published
C2F outputs are such files), not a dataset of its own.

Which of two such files is the gold: a file of a release folder served (a KITMUS suite keeps a
``.jsonlines`` view beside the CoNLL it is indexed from), or of a published release in
refbench's data folder (``refbench data get``), always is; between two loose files,
the one whose documents carry fewer fields (a system's output adds its own:
``predicted_clusters``, e2e-coref's ``constituents`` and ``ner``). Two files alike but for
their clusters and with the same fields are both left as data. Told apart cheaply: only files
whose first documents are equal are read whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from refbench.core.identity import data_identity
from refbench.core.inputs import format_name, open_text

Doc = tuple[str, Any]  # (doc_key, sentences)


def is_jsonlines(path: Path) -> bool:
    return format_name(path).endswith(".jsonlines")


def _documents(path: Path) -> Iterator[tuple[Doc, Any, frozenset[str]]]:
    """((doc_key, sentences), clusters, keys) of each document; stops at the first line that
    is not an e2e-coref document (such a file is left to its reader)."""
    try:
        with open_text(path) as fh:
            for line in fh:
                if not line.strip():
                    continue
                obj = json.loads(line)
                if not isinstance(obj, dict) or "sentences" not in obj:
                    return
                yield ((str(obj.get("doc_key", "")), obj["sentences"]), obj.get("clusters"),
                       frozenset(obj))
    except (OSError, ValueError, UnicodeDecodeError, EOFError):
        return


def _first(path: Path) -> tuple[Doc, frozenset[str]] | None:
    return next(((doc, keys) for doc, _, keys in _documents(path)), None)


def predictions_of(candidate: Path, released: Iterable[Path], files: Iterable[Path]
                   ) -> Path | None:
    """The data file whose documents ``candidate`` answers with clusters of its own (None: it
    answers none, so it may well be data): a file of a release folder served (``released``:
    that is the gold), or another data file served (``files``) whose documents carry fewer
    fields (a system's output adds its own: ``predicted_clusters``, e2e-coref's
    ``constituents`` and ``ner``; two files alike but for their clusters are both data)."""
    first = _first(candidate)
    if first is None:
        return None
    mine = data_identity(candidate).sha256
    tagged = [(p, True) for p in released] + [(p, False) for p in files]
    for other, is_release in tagged:
        if other.resolve() == candidate.resolve():
            continue
        theirs = _first(other)
        if theirs is None or theirs[0] != first[0] \
                or not (is_release or theirs[1] < first[1]) \
                or data_identity(other).sha256 == mine:
            continue
        docs = [(d, c) for d, c, _ in _documents(candidate)]
        gold = [(d, c) for d, c, _ in _documents(other)]
        if len(docs) == len(gold) and all(a[0] == b[0] for a, b in zip(docs, gold, strict=True)) \
                and any(a[1] != b[1] for a, b in zip(docs, gold, strict=True)):
            return other
    return None


def jsonlines_under(folders: Iterable[Path]) -> list[Path]:
    """The e2e-coref files inside ``folders`` (a suite folder keeps its ``.jsonlines`` view
    beside the CoNLL files it is indexed from)."""
    found: list[Path] = []
    for folder in folders:
        found += sorted(p for p in folder.rglob("*") if p.is_file() and is_jsonlines(p))
    return found


def released_jsonlines() -> list[Path]:
    """The e2e-coref files of the published releases present in refbench's data folder
    (``refbench data get``): gold, so a system's answers to them are told apart even when the
    release itself is not served."""
    from refbench.releases.cache import data_dir, present
    from refbench.releases.manifest import all_releases

    root = data_dir()
    if not root.is_dir():
        return []
    found = []
    for release in all_releases():
        for entry in release.files:
            if is_jsonlines(Path(entry.file)) and (path := present(root, entry)) is not None:
                found.append(path)
    return found
