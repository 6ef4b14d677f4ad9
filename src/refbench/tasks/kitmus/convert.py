"""Convert KITMUS-style data between CoNLL-2012, e2e-coref jsonlines, GAP TSV, text and native.

The pivot is :class:`ConllDocument` (tokens, POS, clusters). Native JSONL converts to any view;
CoNLL and jsonlines convert to each other, to text, and to GAP TSV (2-entity documents). GAP TSV
has no tokens, so it converts to nothing else. Output is written atomically (``.gz`` honoured).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.inputs import format_name
from refbench.core.io import atomic_write
from refbench.core.types import Mention
from refbench.formats.conll2012 import ConllDocument, format_conll, read_conll
from refbench.formats.detok import detokenize
from refbench.formats.e2e_jsonlines import format_jsonlines, read_jsonlines
from refbench.formats.gap_tsv import GAP_COLUMNS, format_row
from refbench.tasks.kitmus.instance import VIEWS
from refbench.tasks.kitmus.native import read_native
from refbench.tasks.kitmus.score.gold import gold_from_conll_doc
from refbench.tasks.kitmus.structure import meet_sentence
from refbench.tasks.kitmus.writers import view_clusters

TARGETS = ("conll", "jsonlines", "tsv", "txt")


def _base_name(path: Path) -> str:
    return format_name(path)


def view_of(doc: ConllDocument, view: str, *, path: Path | str) -> ConllDocument:
    """A full-text document cut to a view by its structure (``structure.meet_sentence``): the
    task text from the meet sentence on, the knowledge text before it. The id's view segment,
    where it has one (the official release's ``.../full-text/test:0``), names the new view.
    A document that is already a view is returned as it is when asked for that view."""
    if view == "full-text":
        return doc
    refs = [(m.sentence, m.start, m.end, cid) for cid, ms in doc.clusters.items() for m in ms]
    meet = meet_sentence(refs)
    if meet is None:
        if view == "knowledge-text-only":
            return doc  # no task text: already the knowledge text
        raise RefbenchError("no sentence mentions two entities: no task text to keep",
                            path=path, item=doc.doc_id)
    keep = range(meet, len(doc.sentences)) if view == "task-text-only" else range(meet)
    if view == "knowledge-text-only" and meet == 0:
        raise RefbenchError("the document starts with the task text: no knowledge text to keep",
                            path=path, item=doc.doc_id)
    clusters = {cid: [Mention(m.sentence - keep.start, m.start, m.end) for m in ms
                      if m.sentence in keep] for cid, ms in doc.clusters.items()}
    doc_id = doc.doc_id
    for other in VIEWS:
        doc_id = doc_id.replace(f"/{other}/", f"/{view}/")
    return ConllDocument(doc_id, doc.part, [doc.sentences[i] for i in keep],
                         {cid: ms for cid, ms in clusters.items() if ms}, doc.first_line)


def read_documents(path: str | Path, *, view: str = "full-text") -> Iterator[ConllDocument]:
    """Documents of any token-level KITMUS file in ``view``: native JSONL renders the view;
    CoNLL and jsonlines full-text documents are cut to it by their structure."""
    p = Path(path)
    name = _base_name(p)
    if name.endswith((".v4_gold_conll", ".conll", "_conll")):
        for doc in read_conll(p, min_columns=6):
            yield view_of(doc, view, path=p)
    elif name.endswith(".jsonlines"):
        for jdoc in read_jsonlines(p):
            yield view_of(jdoc.to_conll_document(path=p), view, path=p)
    elif name.endswith(".jsonl"):
        for inst in read_native(p):
            sent_ids, view_spans = view_clusters(inst, view)
            yield ConllDocument(
                inst.id, 0, [list(inst.sentences[s].tokens) for s in sent_ids],
                {k + 1: [Mention(*x) for x in ms] for k, ms in enumerate(view_spans) if ms})
    elif name.endswith(".tsv"):
        raise UsageError(f"{p}: a GAP TSV has no tokens and cannot be converted to other formats")
    else:
        raise UsageError(f"{p}: unknown input format (expected .v4_gold_conll, .conll, "
                         ".jsonlines or native .jsonl, optionally .gz)")


def render(doc: ConllDocument, target: str, *, path: Path | str) -> str:
    clusters = [[(m.sentence, m.start, m.end) for m in ms]
                for _, ms in sorted(doc.clusters.items())]
    if target == "conll":
        return format_conll(doc.doc_id, doc.sentences, clusters)
    if target == "jsonlines":
        return format_jsonlines(doc.doc_id, [[w for w, _ in s] for s in doc.sentences], clusters)
    if target == "txt":
        return f"{doc.doc_id}\n{detokenize([w for s in doc.sentences for w, _ in s])[0]}\n\n"
    gold = gold_from_conll_doc(doc, path=path)
    if len(gold.candidates) != 2:
        raise RefbenchError(f"GAP TSV holds 2 candidates; this document has "
                            f"{len(gold.candidates)}", path=path, item=doc.doc_id)
    a, b = gold.candidates
    assert gold.text is not None
    return format_row([doc.doc_id, gold.text, gold.pronoun_form, str(gold.pronoun_offset),
                       a.name, str(gold.candidate_offset(0)),
                       "TRUE" if gold.answer == 0 else "FALSE",
                       b.name, str(gold.candidate_offset(1)),
                       "TRUE" if gold.answer == 1 else "FALSE", "none"])


def convert(src: str | Path, dst: str | Path, *, target: str | None = None,
            view: str = "full-text") -> int:
    """Convert ``src`` into ``dst``; the target format comes from ``dst``'s extension."""
    out = Path(dst)
    fmt = target or _format_of(out)
    if fmt not in TARGETS:
        raise UsageError(f"unknown target format {fmt!r}; choose from {', '.join(TARGETS)}")
    n = 0
    with atomic_write(out) as fh:
        if fmt == "tsv":
            fh.write("\t".join((*GAP_COLUMNS, "URL")) + "\n")
        for doc in read_documents(src, view=view):
            fh.write(render(doc, fmt, path=src))
            n += 1
        if n == 0:  # inside the write: the empty output is never renamed into place
            raise RefbenchError("holds no documents: nothing to convert", path=src)
    return n


def _format_of(path: Path) -> str:
    name = _base_name(path)
    for ext, fmt in ((".v4_gold_conll", "conll"), (".conll", "conll"),
                     (".jsonlines", "jsonlines"), (".tsv", "tsv"), (".txt", "txt")):
        if name.endswith(ext):
            return fmt
    raise UsageError(f"{path}: cannot tell the target format from the name; use --to")
