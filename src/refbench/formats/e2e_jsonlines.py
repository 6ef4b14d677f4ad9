"""e2e-coref ``.jsonlines`` reader: doc_key, sentences, clusters (document-level token spans)."""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import read_jsonl
from refbench.core.types import Mention
from refbench.formats.conll2012 import ConllDocument

Span = tuple[int, int]


@dataclass
class JsonlinesDocument:
    doc_key: str
    sentences: list[list[str]]
    clusters: list[list[Span]]
    predicted_clusters: list[list[Span]] | None
    line: int

    @property
    def words(self) -> list[str]:
        return [w for s in self.sentences for w in s]

    def text(self, span: Span) -> str:
        return " ".join(self.words[span[0]:span[1] + 1])

    def to_conll_document(self, *, path: Path | str,
                          predicted: bool = False) -> ConllDocument:
        """The same document with sentence-level mentions (POS ``-``); a span that crosses a
        sentence boundary is an error naming the line and document."""
        starts, total = [], 0
        for sent in self.sentences:
            starts.append(total)
            total += len(sent)
        clusters: dict[int, list[Mention]] = {}
        source = self.predicted_clusters if predicted else self.clusters
        for cid, spans in enumerate(source or [], start=1):
            for a, b in spans:
                s = bisect.bisect_right(starts, a) - 1
                if b >= starts[s] + len(self.sentences[s]):
                    raise RefbenchError(f"span [{a}, {b}] crosses a sentence boundary",
                                        path=path, line=self.line, item=self.doc_key)
                clusters.setdefault(cid, []).append(Mention(s, a - starts[s], b - starts[s]))
        return ConllDocument(self.doc_key, 0, [[(w, "-") for w in sent]
                                               for sent in self.sentences], clusters, self.line)


def _clusters(
    value: Any, *, path: Path | str, line: int, key: str, n_words: int
) -> list[list[Span]]:
    if not isinstance(value, list):
        raise RefbenchError(f"'{key}' must be a list of clusters", path=path, line=line)
    out = []
    for cluster in value:
        spans = []
        for span in cluster if isinstance(cluster, list) else [None]:
            if (not isinstance(span, list) or len(span) != 2
                    or not all(isinstance(x, int) for x in span)):
                raise RefbenchError(f"'{key}' holds {span!r}; expected [start, end]", path=path,
                                    line=line)
            if not 0 <= span[0] <= span[1] < n_words:
                raise RefbenchError(f"'{key}' span {span} lies outside the {n_words} tokens",
                                    path=path, line=line)
            spans.append((span[0], span[1]))
        out.append(spans)
    return out


def read_jsonlines(path: str | Path) -> Iterator[JsonlinesDocument]:
    for line, obj in read_jsonl(path):
        if "doc_key" not in obj or "sentences" not in obj:
            raise RefbenchError("expected 'doc_key' and 'sentences'", path=path, line=line)
        sentences = obj["sentences"]
        if not isinstance(sentences, list) or not all(isinstance(s, list) for s in sentences):
            raise RefbenchError("'sentences' must be a list of token lists", path=path, line=line)
        n_words = sum(len(s) for s in sentences)
        clusters = _clusters(obj.get("clusters", []), path=path, line=line, key="clusters",
                             n_words=n_words)
        predicted = (_clusters(obj["predicted_clusters"], path=path, line=line,
                               key="predicted_clusters", n_words=n_words)
                     if "predicted_clusters" in obj else None)
        yield JsonlinesDocument(str(obj["doc_key"]), sentences, clusters, predicted, line)


def format_jsonlines(doc_key: str, sentences: Sequence[Sequence[str]],
                     clusters: Sequence[Sequence[tuple[int, int, int]]]) -> str:
    """One e2e-coref line; clusters given as (sentence, start, end) become document spans."""
    starts, total = [], 0
    for words in sentences:
        starts.append(total)
        total += len(words)
    obj = {
        "doc_key": doc_key,
        "sentences": [list(words) for words in sentences],
        "speakers": [["Speaker#1"] * len(words) for words in sentences],
        "clusters": [[[starts[s] + a, starts[s] + b] for s, a, b in spans]
                     for spans in clusters if spans],
    }
    return json.dumps(obj, ensure_ascii=False) + "\n"
