"""CoNLL-2012 reader: streamed documents with tokens, POS tags and coreference clusters.

The coreference column is the last one: ``-`` or ``|``-joined ``(k``, ``k)``, ``(k)``. Columns
are whitespace-separated, so any padding works. Malformed input (a short line, unbalanced
brackets, a document never closed) is a :class:`RefbenchError` naming the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from refbench.core.errors import RefbenchError
from refbench.core.io import open_text
from refbench.core.types import Mention

_BEGIN = re.compile(r"^#begin document \((.*)\); part (\d+)\s*$")
_PART = re.compile(r"^\((\d+)\)$|^\((\d+)$|^(\d+)\)$")
MIN_COLUMNS = 12


@dataclass
class ConllDocument:
    doc_id: str
    part: int
    sentences: list[list[tuple[str, str]]] = field(default_factory=list)
    clusters: dict[int, list[Mention]] = field(default_factory=dict)
    first_line: int = 0

    def words(self, m: Mention) -> str:
        return " ".join(w for w, _ in self.sentences[m.sentence][m.start:m.end + 1])


def read_conll(path: str | Path, *, min_columns: int = MIN_COLUMNS) -> Iterator[ConllDocument]:
    """Stream the documents of a CoNLL-2012 file (constant memory per document)."""
    try:
        with open_text(path) as fh:
            yield from _parse(fh, path, min_columns)
    except UnicodeDecodeError as exc:
        raise RefbenchError(f"not UTF-8 text ({exc.reason})", path=path) from None
    except FileNotFoundError:
        raise RefbenchError("file not found", path=path) from None


def parse_conll_text(text: str, *, path: str | Path, min_columns: int = MIN_COLUMNS
                     ) -> list[ConllDocument]:
    """The documents of CoNLL-2012 text held in memory (``path`` names it in errors)."""
    return list(_parse(text.splitlines(), path, min_columns))


def _parse(lines: Iterable[str], path: str | Path, min_columns: int) -> Iterator[ConllDocument]:
    doc: ConllDocument | None = None
    sentence: list[tuple[str, str]] = []
    open_spans: dict[int, list[tuple[int, int]]] = {}
    n_cols = 0
    number = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if not line or line.isspace():
            if doc is not None and sentence:
                doc.sentences.append(sentence)
                sentence = []
            continue
        if line[0] == "#":
            if line.startswith("#begin document"):
                if doc is not None:
                    raise RefbenchError(f"document {doc.doc_id!r} (line {doc.first_line}) was "
                                        "not closed by #end document", path=path, line=number)
                m = _BEGIN.match(line)
                if not m:
                    raise RefbenchError("expected '#begin document (<id>); part <n>'",
                                        path=path, line=number)
                doc = ConllDocument(m.group(1), int(m.group(2)), first_line=number)
                sentence, open_spans, n_cols = [], {}, 0
            elif line.startswith("#end document"):
                if doc is None:
                    raise RefbenchError("#end document without #begin document", path=path,
                                        line=number)
                if sentence:
                    doc.sentences.append(sentence)
                dangling = [k for k, v in open_spans.items() if v]
                if dangling:
                    raise RefbenchError(f"unbalanced coreference brackets: cluster(s) "
                                        f"{', '.join(map(str, dangling))} opened but never closed",
                                        path=path, line=number, item=doc.doc_id)
                for spans in doc.clusters.values():
                    spans.sort()
                yield doc
                doc, sentence = None, []
            continue
        if doc is None:
            raise RefbenchError("token line outside a document", path=path, line=number)
        cols = line.split()
        if len(cols) != n_cols:
            if len(cols) < min_columns:
                raise RefbenchError(f"expected at least {min_columns} columns, found {len(cols)}",
                                    path=path, line=number, item=doc.doc_id)
            if n_cols:
                raise RefbenchError(f"expected {n_cols} columns as in the rest of the document, "
                                    f"found {len(cols)}", path=path, line=number,
                                    item=doc.doc_id)
            n_cols = len(cols)
        coref = cols[-1]
        if coref != "-" and coref != "_":
            _coref(doc, coref, len(doc.sentences), len(sentence), open_spans, path, number)
        sentence.append((cols[3], cols[4]))
    if doc is not None:
        raise RefbenchError(f"document {doc.doc_id!r} (line {doc.first_line}) was not closed "
                            "by #end document", path=path, line=number)


def _coref(doc: ConllDocument, coref: str, s_idx: int, t_idx: int,
           open_spans: dict[int, list[tuple[int, int]]], path: str | Path, number: int) -> None:
    for piece in coref.split("|"):
        pm = _PART.match(piece)
        if not pm:
            raise RefbenchError(f"bad coreference field {coref!r}", path=path, line=number,
                                item=doc.doc_id)
        single, opening, closing = pm.groups()
        if single is not None:
            doc.clusters.setdefault(int(single), []).append(Mention(s_idx, t_idx, t_idx))
        elif opening is not None:
            open_spans.setdefault(int(opening), []).append((s_idx, t_idx))
        else:
            cid = int(closing)
            stack = open_spans.get(cid)
            if not stack:
                raise RefbenchError(f"unbalanced coreference brackets: cluster {cid} closed "
                                    "but not open", path=path, line=number, item=doc.doc_id)
            s0, t0 = stack.pop()
            if s0 != s_idx:
                raise RefbenchError(f"mention of cluster {cid} crosses a sentence boundary",
                                    path=path, line=number, item=doc.doc_id)
            doc.clusters.setdefault(cid, []).append(Mention(s_idx, t0, t_idx))


SentenceSpan = tuple[int, int, int]  # (sentence, start, end inclusive)


def format_conll(doc_id: str, sentences: Sequence[Sequence[tuple[str, str]]],
                 clusters: Sequence[Sequence[SentenceSpan]]) -> str:
    """One CoNLL-2012 document; cluster ``k`` of the list gets id ``k + 1``.

    Columns are separated by single spaces (no fixed widths), so any id length works.
    """
    marks: dict[tuple[int, int], list[str]] = {}
    for cid, spans in enumerate(clusters, start=1):
        for s, a, b in spans:
            if a == b:
                marks.setdefault((s, a), []).append(f"({cid})")
            else:
                marks.setdefault((s, a), []).append(f"({cid}")
                marks.setdefault((s, b), []).append(f"{cid})")
    lines = [f"#begin document ({doc_id}); part 000\n"]
    for k, sent in enumerate(sentences):
        for i, (word, tag) in enumerate(sent):
            m = marks.get((k, i))
            coref = "|".join(m) if m else "-"
            lines.append(f"{doc_id} 0 {i} {word} {tag} * - - - Speaker#1 * {coref}\n")
        lines.append("\n")
    lines.append("#end document\n")
    return "".join(lines)
