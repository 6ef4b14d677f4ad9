"""e2e-coref ``.jsonlines`` reader: doc_key, sentences, clusters (document-level token spans)."""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.inputs import parse_jsonl
from refbench.core.invalid import InvalidInstances
from refbench.core.records import Record, Where, check_int, check_list, check_str
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
    subtoken_map: list[int] | None = None  # BERT-style output: the word of each wordpiece

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


def _clusters(rec: Record, key: str, n_words: int) -> list[list[Span]]:
    raw = rec.obj.get(key)
    fast = _plain_spans(raw, n_words)
    if fast is not None:
        return fast
    out = []
    for c, cluster in enumerate(rec.items(key)):
        spans = []
        for k, span in enumerate(check_list(cluster, f"{key}[{c}]", rec.where)):
            name = f"{key}[{c}][{k}]"
            a, b = (check_int(x, name, rec.where, min=0, exact=True) for x in
                    check_list(span, name, rec.where, length=2))
            if not a <= b < n_words:
                raise rec.where.error(f"field {name!r}: span [{a}, {b}] lies outside the "
                                      f"{n_words} tokens")
            spans.append((a, b))
        out.append(spans)
    return out


def _plain_spans(raw: Any, n_words: int) -> list[list[Span]] | None:
    """Clusters that are lists of ``[start, end]`` integer pairs inside the document, read
    without per-field checks (most files); None for anything else, which the checks then
    read and report."""
    if type(raw) is not list:
        return None
    out: list[list[Span]] = []
    for cluster in raw:
        if type(cluster) is not list:
            return None
        spans: list[Span] = []
        for span in cluster:
            if type(span) is not list or len(span) != 2:
                return None
            a, b = span
            if type(a) is not int or type(b) is not int or not 0 <= a <= b < n_words:
                return None
            spans.append((a, b))
        out.append(spans)
    return out


def _plain_sentences(raw: Any) -> list[list[str]] | None:
    """Sentences that are lists of strings (most files), read without per-token checks."""
    if type(raw) is not list:
        return None
    for sent in raw:
        if type(sent) is not list:
            return None
        try:
            "".join(sent)  # a C loop that raises on any token that is not a string
        except TypeError:
            return None
    return [list(s) for s in raw]


def jsonlines_document(obj: Any, *, path: Path | str, line: int) -> JsonlinesDocument:
    """One line, its shape checked: doc_key, sentences of string tokens, clusters of
    [start, end] spans inside the document."""
    rec = Record(obj, Where(path, line))
    rec = Record(obj, Where(path, line, rec.text("doc_key")))
    sentences = _plain_sentences(obj.get("sentences"))
    if sentences is None:
        sentences = [check_list(s, f"sentences[{i}]", rec.where)
                     for i, s in enumerate(rec.items("sentences"))]
        for i, sent in enumerate(sentences):
            for j, w in enumerate(sent):
                check_str(w, f"sentences[{i}][{j}]", rec.where)
    n_words = sum(len(s) for s in sentences)
    clusters = _clusters(rec, "clusters", n_words) if rec.has("clusters") else []
    predicted = _clusters(rec, "predicted_clusters", n_words) \
        if "predicted_clusters" in obj else None
    subtoken_map = None
    if obj.get("subtoken_map") is not None:
        subtoken_map = [check_int(x, f"subtoken_map[{i}]", rec.where, min=0, exact=True)
                        for i, x in enumerate(rec.items("subtoken_map"))]
        if len(subtoken_map) != n_words:
            raise rec.where.error(f"field 'subtoken_map': expected one word index for each of "
                                  f"the {n_words} subtokens of 'sentences', found "
                                  f"{len(subtoken_map)}")
    return JsonlinesDocument(rec.text("doc_key"), sentences, clusters, predicted, line,
                             subtoken_map)


def read_jsonlines(path: str | Path, *, on_invalid: InvalidInstances | None = None
                   ) -> Iterator[JsonlinesDocument]:
    """The documents of a file; with ``on_invalid`` (``--skip-invalid``) a malformed one is
    recorded and skipped."""
    yield from parse_jsonl(path, lambda obj, line: jsonlines_document(obj, path=path, line=line),
                           on_invalid=on_invalid, id_key="doc_key")


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
