"""TNE documents: every release (v1.0 ``nps`` as a dict, v1.1 as a list), either field spelling
(``first_char/last_char/first_token/last_token`` as in the files, ``start_*/end_*`` as in the
published README), labelled or not, into :class:`NPDocument`.

Token spans are inclusive (``first_token``..``last_token``); character spans are
``[first_char, last_char)``. A pair keeps *all* its prepositions (a pair can have two).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import read_jsonl

PREPOSITIONS = ("no-relation", "of", "against", "in", "by", "on", "about", "with", "after",
                "member(s) of", "to", "from", "for", "among", "under", "at", "between",
                "during", "near", "over", "before", "inside", "outside", "into", "around")
PREP_ID = {p: i for i, p in enumerate(PREPOSITIONS)}
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

    def np_index(self) -> dict[str, int]:
        return {np.id: i for i, np in enumerate(self.nps)}

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


def _field(obj: dict[str, Any], name: str, *, path: Path | str, line: int, item: str) -> int:
    for key in _SPELLINGS[name]:
        if key in obj:
            try:
                return int(obj[key])
            except (TypeError, ValueError):
                break
    raise RefbenchError(f"NP needs an integer {name} (or {', '.join(_SPELLINGS[name][1:])})",
                        path=path, line=line, item=item)


def document_from_json(obj: dict[str, Any], *, path: Path | str = "<json>",
                       line: int = 0) -> NPDocument:
    doc_id = str(obj.get("id", f"line{line}"))
    for key in ("text", "tokens", "nps"):
        if key not in obj:
            raise RefbenchError(f"missing field {key!r}", path=path, line=line, item=doc_id)
    tokens = [str(t) for t in obj["tokens"]]
    raw_nps = obj["nps"]
    items = list(raw_nps.values()) if isinstance(raw_nps, dict) else list(raw_nps)
    nps = []
    for k, np in enumerate(items):
        np_id = str(np.get("id", (list(raw_nps)[k] if isinstance(raw_nps, dict) else f"np{k}")))
        where = f"{doc_id}/{np_id}"
        a, b = (_field(np, n, path=path, line=line, item=where)
                for n in ("first_token", "last_token"))
        c, d = (_field(np, n, path=path, line=line, item=where)
                for n in ("first_char", "last_char"))
        if not 0 <= a <= b < len(tokens) or not 0 <= c <= d <= len(obj["text"]):
            raise RefbenchError(f"NP span tokens {a}-{b} / chars {c}-{d} lies outside the "
                                f"document ({len(tokens)} tokens)", path=path, line=line,
                                item=where)
        nps.append(NounPhrase(np_id, str(np.get("text", "")), c, d, a, b))
    nps.sort(key=lambda n: (n.first_token, n.last_token))
    known = {n.id for n in nps}
    relations: dict[tuple[str, str], set[str]] | None = None
    if "np_relations" in obj:
        relations = {}
        for r in obj["np_relations"]:
            anchor, comp, prep = str(r["anchor"]), str(r["complement"]), str(r["preposition"])
            for role, np_id in (("anchor", anchor), ("complement", comp)):
                if np_id not in known:
                    raise RefbenchError(f"relation names {role} {np_id!r}, which is not an NP "
                                        "of the document", path=path, line=line, item=doc_id)
            if prep not in PREP_ID:
                raise RefbenchError(f"unknown preposition {prep!r}", path=path, line=line,
                                    item=doc_id)
            relations.setdefault((anchor, comp), set()).add(prep)
    clusters = [(str(c["id"]), tuple(str(m) for m in c["members"]),
                 str(c.get("np_type") or "unknown")) for c in obj.get("coref", [])]
    return NPDocument(doc_id, str(obj["text"]), tokens, nps,
                      {k: frozenset(v) for k, v in relations.items()} if relations is not None
                      else None, clusters, dict(obj.get("metadata") or {}))


def read_tne(path: str | Path) -> Iterator[NPDocument]:
    for line, obj in read_jsonl(path):
        yield document_from_json(obj, path=path, line=line)
