"""TNE documents as ``refbench export hf`` rows: the release's field names (v1.0 and v1.1 read
alike), one schema for every row (``metadata`` as a JSON string)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refbench.tasks.capabilities import HfExport


def tne_rows(path: Path) -> Iterator[dict[str, Any]]:
    """One row per document of ``path``."""
    from refbench.tasks.tne.read import read_tne

    for doc in read_tne(path):
        rels = None if doc.relations is None else [
            {"anchor": a, "complement": c, "prepositions": sorted(p)}
            for (a, c), p in sorted(doc.relations.items())]
        yield {"id": doc.id, "text": doc.text, "tokens": list(doc.tokens),
               "nps": [{"id": n.id, "text": n.text, "first_char": n.first_char,
                        "last_char": n.last_char, "first_token": n.first_token,
                        "last_token": n.last_token} for n in doc.nps],
               "np_relations": rels,
               "coref": [{"id": i, "members": list(m), "np_type": t}
                         for i, m, t in doc.clusters],
               "metadata": json.dumps(doc.metadata, ensure_ascii=False, sort_keys=True,
                                      default=str)}


class TneExport(HfExport):
    """``refbench export hf`` writes TNE's documents in the release's field names."""

    def rows(self, path: Path) -> Iterator[dict[str, Any]] | None:
        return tne_rows(path)
