"""TNE documents as the web index's records: NPs, gold relations, clusters and explicit pairs
as plain JSON for the document page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from refbench.tasks.index_records import Record, plain, preview


def tne_records(path: Path) -> Iterator[Record]:
    from refbench.tasks.tne.metrics import explicit_pairs
    from refbench.tasks.tne.read import read_tne

    for doc in read_tne(path):
        relations = None
        if doc.relations is not None:
            relations = [[a, c, sorted(p)] for (a, c), p in sorted(doc.relations.items())]
        payload = {"view": "tne", "id": doc.id, "text": doc.text,
                   "nps": [[n.id, n.first_char, n.last_char, n.text] for n in doc.nps],
                   "relations": relations, "clusters": [list(c) for c in doc.clusters],
                   "explicit": sorted(explicit_pairs(doc)), "source": doc.source,
                   "meta": plain(doc.metadata)}
        title_end = doc.title_end
        yield Record(iid=doc.id, gold=None, gold_label="",
                     facets={"source": doc.source,
                             "labelled": "yes" if doc.relations is not None else "no"},
                     title=preview(doc.text[:title_end] + " — " + doc.text[title_end:]),
                     body=doc.text, payload=payload)
