"""What the app reads from whole data files, kept in the cache folder by content.

A documents task's file ids (TNE: every document id of a data or prediction file) take
seconds to read from a large file; the home page and the leaderboard need them for every
dataset and prediction file at each start. They are kept under the file's sha256
(:func:`refbench.core.cache.load_parsed`), so a second start reads none of those files.
"""

from __future__ import annotations

from pathlib import Path

from refbench.core.cache import code_stamp, load_parsed, save_parsed
from refbench.tasks.capabilities import Documents

KIND = "document-ids"


def document_ids(documents: Documents, path: Path, *, compute: bool = True
                 ) -> frozenset[str] | None:
    """The document ids of ``path`` (RefbenchError when it cannot be read); None when they
    are not kept yet and ``compute`` is false."""
    stamp = code_stamp(type(documents).__module__)
    try:
        kept = load_parsed(KIND, path, stamp)
    except OSError:
        kept = None
    if isinstance(kept, list):
        return frozenset(str(x) for x in kept)
    if not compute:
        return None
    ids = documents.document_ids(path)
    save_parsed(KIND, path, stamp, sorted(ids))
    return ids
