"""TNE documents: every release (v1.0 ``nps`` as a dict, v1.1 as a list), either field spelling
(``first_char/last_char/first_token/last_token`` as in the files, ``start_*/end_*`` as in the
published README), labelled or not, into :class:`NPDocument`.

Token spans are inclusive (``first_token``..``last_token``); character spans are
``[first_char, last_char)``. A pair keeps *all* its prepositions (a pair can have two).

NPs keep the file's order (``np0``, ``np1``, ...): the official code and the leaderboard's n x n
matrix index NPs by it. It is not always text order (the two differ in 325 of the 500 test
documents; the late NPs look like the ones annotators added by hand): text order is
:meth:`NPDocument.text_rank`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.inputs import parse_jsonl
from refbench.core.invalid import InvalidInstances
from refbench.core.records import Record, Where

PREPOSITIONS = ("no-relation", "of", "against", "in", "by", "on", "about", "with", "after",
                "member(s) of", "to", "from", "for", "among", "under", "at", "between",
                "during", "near", "over", "before", "inside", "outside", "into", "around")
PREP_ID = {p: i for i, p in enumerate(PREPOSITIONS)}


def best_preposition(scores: dict[str, float]) -> str | None:
    """The highest-scored preposition other than no-relation (ties: the official order), or
    None when nothing else is scored. UPrep-Acc and the leaderboard's best_prepositions agree."""
    linked = [q for q in scores if q != "no-relation"]
    return min(linked, key=lambda q: (-scores[q], PREP_ID[q])) if linked else None


_SPELLINGS = {"first_char": ("first_char", "start_index", "start_char"),
              "last_char": ("last_char", "end_index", "end_char"),
              "first_token": ("first_token", "start_token"),
              "last_token": ("last_token", "end_token")}


@dataclass(frozen=True)
class NounPhrase:
    id: str
    text: str
    first_char: int
    last_char: int
    first_token: int
    last_token: int


@dataclass
class NPDocument:
    id: str
    text: str
    tokens: list[str]
    nps: list[NounPhrase]
    relations: dict[tuple[str, str], frozenset[str]] | None  # None: unlabelled
    clusters: list[tuple[str, tuple[str, ...], str]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    # (anchor, complement, preposition) entries listed again after their first listing: the
    # release repeats a few (test 2, dev 9, train 44), and its published link counts include them
    repeated_relations: tuple[tuple[str, str, str], ...] = ()

    def np_index(self) -> dict[str, int]:
        """Index of each NP in :attr:`nps` (the file's order, as in the leaderboard matrix)."""
        return {np.id: i for i, np in enumerate(self.nps)}

    def text_rank(self) -> dict[str, int]:
        """Rank of each NP in text order (first token, then last token)."""
        ordered = sorted(self.nps, key=lambda n: (n.first_token, n.last_token))
        return {np.id: i for i, np in enumerate(ordered)}

    @property
    def title_end(self) -> int:
        """Character offset where the title (the first line) ends."""
        cut = self.text.find("\n")
        return len(self.text) if cut < 0 else cut

    @property
    def source(self) -> str:
        """Domain of the document: wikinews, imdb, books, or reddit/<subreddit>."""
        src = str(self.metadata.get("source") or "")
        if src.endswith("imdb.json"):
            return "imdb"
        if src.endswith("gut.json"):
            return "books"
        if src.startswith("reddit_"):
            return "reddit/" + src[len("reddit_"):].replace("_formatted.json", "")
        return "wikinews" if src.startswith("wiki") else (src or "unknown")


def _span_field(np: Record, name: str) -> int:
    for key in _SPELLINGS[name]:
        if key in np.obj:
            value: int = np.integer(key, min=0, numeric_text=True)
            return value
    raise np.where.error(f"NP needs an integer {name} (or {', '.join(_SPELLINGS[name][1:])})")


def _noun_phrase(raw: Any, fallback_id: str, prefix: str, doc: Record) -> NounPhrase:
    if type(raw) is dict:  # fast path for the released spelling; anything else via Record
        a, b = raw.get("first_token"), raw.get("last_token")
        c, d = raw.get("first_char"), raw.get("last_char")
        np_id, text = raw.get("id", fallback_id), raw.get("text", "")
        if (type(a) is int and type(b) is int and type(c) is int and type(d) is int
                and type(np_id) is str and type(text) is str and min(a, c) >= 0):
            return NounPhrase(np_id, text, c, d, a, b)
    np = Record(raw, doc.where, prefix=prefix)
    np_id = np.text("id", fallback_id)
    np = Record(raw, doc.where.with_item(f"{doc.where.item}/{np_id}"), prefix=prefix)
    a, b = (_span_field(np, n) for n in ("first_token", "last_token"))
    c, d = (_span_field(np, n) for n in ("first_char", "last_char"))
    return NounPhrase(np_id, np.text("text", ""), c, d, a, b)


def _noun_phrases(doc: Record, n_tokens: int, n_chars: int) -> list[NounPhrase]:
    raw = doc.raw("nps")
    if isinstance(raw, dict):
        items = [(str(key), value, f"nps[{key!r}].") for key, value in raw.items()]
    else:
        items = [(f"np{k}", value, f"nps[{k}].") for k, value in enumerate(doc.items("nps"))]
    nps = []
    seen: set[str] = set()
    for fallback, value, prefix in items:
        np = _noun_phrase(value, fallback, prefix, doc)
        if np.id in seen:
            raise doc.where.error(f"NP id {np.id!r} occurs twice")
        seen.add(np.id)
        a, b, c, d = np.first_token, np.last_token, np.first_char, np.last_char
        if not a <= b < n_tokens or not c <= d <= n_chars:
            raise doc.where.with_item(f"{doc.where.item}/{np.id}").error(
                f"NP span tokens {a}-{b} / chars {c}-{d} lies outside the document "
                f"({n_tokens} tokens, {n_chars} characters)")
        nps.append(np)
    return nps


def _relation(r: Any, k: int, doc: Record) -> tuple[str, str, str]:
    # Fast path for the common, well-formed case (hundreds of thousands per file); anything
    # else goes through Record, whose errors name the field.
    if type(r) is dict:
        a, c, p = r.get("anchor"), r.get("complement"), r.get("preposition")
        if type(a) is str and type(c) is str and type(p) is str:
            return a, c, p
    rec = Record(r, doc.where, prefix=f"np_relations[{k}].")
    return rec.text("anchor"), rec.text("complement"), rec.string("preposition")


def _relations(doc: Record, known: set[str]
               ) -> tuple[dict[tuple[str, str], frozenset[str]], tuple[tuple[str, str, str], ...]]:
    """The document's relations, and the entries listed again after their first listing."""
    relations: dict[tuple[str, str], set[str]] = {}
    repeated: list[tuple[str, str, str]] = []
    for k, r in enumerate(doc.items("np_relations")):
        anchor, comp, prep = _relation(r, k, doc)
        if anchor not in known or comp not in known:
            role, np_id = ("anchor", anchor) if anchor not in known else ("complement", comp)
            raise doc.where.error(f"relation names {role} {np_id!r}, which is not an NP "
                                  "of the document")
        if prep not in PREP_ID:
            raise doc.where.error(f"unknown preposition {prep!r}; expected one of the 25 TNE "
                                  "prepositions")
        if prep in relations.setdefault((anchor, comp), set()):
            repeated.append((anchor, comp, prep))
        relations[(anchor, comp)].add(prep)
    return {k: frozenset(v) for k, v in relations.items()}, tuple(repeated)


def document_from_json(obj: Any, *, path: Path | str = "<json>", line: int = 0) -> NPDocument:
    """One TNE document, its shape checked once, here (file, line, id, field, expectation)."""
    where = Where(path, line)
    doc = Record(obj, where)
    doc_id = doc.text("id", f"line{line}")
    doc = Record(obj, where.with_item(doc_id))
    text = doc.string("text")
    tokens = doc.strings("tokens")
    nps = _noun_phrases(doc, len(tokens), len(text))
    known = {n.id for n in nps}
    relations, repeated = _relations(doc, known) if doc.has("np_relations") else (None, ())
    clusters = []
    for c in doc.records("coref", []):
        members = tuple(c.strings("members"))
        # np_type is null throughout the train release: "unknown", not a guessed type
        clusters.append((c.text("id"), members, str(c.raw("np_type", None) or "unknown")))
    metadata = doc.raw("metadata", None) or {}
    if not isinstance(metadata, dict):
        raise doc.where.error("field 'metadata': expected an object")
    return NPDocument(doc_id, text, tokens, nps, relations, clusters, dict(metadata), repeated)


def read_documents(path: str | Path, *, on_invalid: InvalidInstances | None = None,
                   progress: bool = False) -> list[NPDocument]:
    """Every document of a file, which must hold at least one (an empty file would score,
    train or predict nothing, and say nothing about it). ``progress``: a bar on a terminal
    (the train file takes half a minute)."""
    from tqdm import tqdm

    docs = list(tqdm(read_tne(path, on_invalid=on_invalid), desc=Path(path).name, unit=" docs",
                     leave=False, disable=None if progress else True))
    if not docs:
        raise RefbenchError("holds no TNE documents", path=path)
    return docs


def read_tne(path: str | Path, *, on_invalid: InvalidInstances | None = None
             ) -> Iterator[NPDocument]:
    """The documents of a TNE file; a malformed one stops the reading, or with ``on_invalid``
    (``--skip-invalid``) is skipped and recorded."""
    yield from parse_jsonl(path, lambda obj, line: document_from_json(obj, path=path, line=line),
                           on_invalid=on_invalid)
