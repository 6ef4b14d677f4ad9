"""Instance lists: full-text search, slice filters, per-system correctness filters, ordering by
disagreement, counts, and keyset pagination, each one SQL query over a dataset's index.

Keyset pagination (``after``/``before`` a cursor) instead of OFFSET: page 900 of a 100,000-
instance suite costs what page 1 costs. A cursor is the last row's position in the order: the
instance number, or ``score.number`` when sorted by disagreement. Bad input (an unknown slice, a
malformed cursor, FTS5 query syntax SQLite rejects) raises :class:`BadQuery`, shown as a 400.

Search text is plain by default: every word is quoted as an FTS5 phrase, so what people type
(``O'Brien``, ``e-mail``, ``U.S.``) finds what they mean instead of being FTS5 syntax. The
``advanced`` mode passes FTS5 syntax through, within caps on terms, prefix terms and NEAR
groups (:func:`check_advanced`). Either way the MATCH runs once per request, into a temporary
table every list query of the request reads, and every request's queries share a time budget
(a progress handler) that ends in a 400 instead of holding a worker for minutes.

Words are matched by their Porter stems (the index's tokenizer), so "firefighter" finds
"firefighters". A listed instance that a search found carries its *snippet*: the passage
around the match, cut and marked by FTS5's ``snippet()`` with the same query and tokenizer on
the page's own texts, returned as (text, matched) segments that the templates escape and mark
with ``<mark>`` (never markup from the data).
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

from refbench.web.index import TOKENIZE, unpack

PAGE_SIZE = 50
CORRECTNESS = ("correct", "incorrect", "missing")
SORTS = ("index", "disagreement")
_CURSOR = re.compile(r"^(?:(\d{1,18})\.)?(\d{1,18})$")
MODES = ("plain", "advanced")
MAX_CHARS = 500
MAX_TERMS = 16  # words (plain or advanced, phrase words included)
MAX_PREFIX = 4  # ``pre*`` terms (advanced)
MIN_PREFIX_CHARS = 2  # ``a*`` expands to a large share of the vocabulary
MAX_NEAR = 2  # NEAR groups (advanced)
MAX_NEAR_DISTANCE = 50
BUDGET_S = 3.0  # every list query of one request together
_TICKS = 2000  # SQLite VM instructions between two looks at the clock
# An FTS5 query's lexemes: "a phrase", a bareword, or one punctuation character.
_LEXEME = re.compile(r'"(?:[^"]|"")*"?|[^\s"():*^{},+]+|[():*^{},+]')
_WORD = re.compile(r"\w+")
_OPERATORS = frozenset({"AND", "OR", "NOT", "NEAR"})
SNIPPET_TOKENS = 24  # words of a snippet (FTS5 allows 64)
_OPEN, _CLOSE = "\ue000", "\ue001"  # private-use characters: the match's ends in a snippet
_MARKED = re.compile(f"{_OPEN}(.*?){_CLOSE}", re.S)
Segment = tuple[str, bool]  # text, whether the search matched it


class BadQuery(ValueError):
    """The request asks for something malformed (HTTP 400)."""

    @classmethod
    def too_slow(cls) -> BadQuery:
        return cls(f"the search took longer than {BUDGET_S:g} s and was stopped; use fewer or "
                   "longer words, fewer prefix terms (pre*) or a smaller NEAR distance")


def budget_exceeded(exc: sqlite3.OperationalError) -> bool:
    """Whether SQLite stopped a statement because the request's time budget ran out."""
    return "interrupted" in str(exc)


def check_advanced(q: str) -> None:
    """Caps on an FTS5 query's cost (BadQuery when over): its words, prefix terms, NEAR groups
    and NEAR distance. SQLite still parses the syntax; this only bounds the work."""
    lexemes = _LEXEME.findall(q)
    words = prefixes = nears = 0
    for k, lex in enumerate(lexemes):
        nxt = lexemes[k + 1] if k + 1 < len(lexemes) else ""
        if lex.startswith('"'):
            words += len(_WORD.findall(lex))
        elif lex == "NEAR" and nxt == "(":
            nears += 1
        elif _WORD.match(lex) and lex not in _OPERATORS and nxt != ":":
            if lex.isdigit() and k > 0 and lexemes[k - 1] == ",":
                if int(lex) > MAX_NEAR_DISTANCE:
                    raise BadQuery(f"a NEAR distance is at most {MAX_NEAR_DISTANCE}")
                continue
            words += 1
        if lex == "*":
            prefixes += 1
            stem = _WORD.findall(lexemes[k - 1]) if k > 0 else []
            if not stem or len(stem[-1]) < MIN_PREFIX_CHARS:
                raise BadQuery(f"a prefix term needs at least {MIN_PREFIX_CHARS} characters "
                               "before its *")
    if words > MAX_TERMS:
        raise BadQuery(f"the search has {words} words; at most {MAX_TERMS}")
    if prefixes > MAX_PREFIX:
        raise BadQuery(f"the search has {prefixes} prefix terms (pre*); at most {MAX_PREFIX}")
    if nears > MAX_NEAR:
        raise BadQuery(f"the search has {nears} NEAR groups; at most {MAX_NEAR}")


def plain_match(q: str) -> str:
    """Plain search text as an FTS5 query: each whitespace-separated word a quoted phrase (so
    ``Dehner's`` is the phrase ``dehner s``), all of them required."""
    words = [w for w in q.split() if _WORD.search(w)]
    if len(words) > MAX_TERMS:
        raise BadQuery(f"the search has {len(words)} words; at most {MAX_TERMS}")
    return " ".join('"' + w.replace('"', '""') + '"' for w in words)


def match_expression(q: str, mode: str, column: str | None) -> str:
    """The FTS5 MATCH text for a search (empty: no search), restricted to one column."""
    if not q.strip():
        return ""
    if mode == "advanced":
        check_advanced(q)
        expr = q
    else:
        expr = plain_match(q)
        if not expr:
            return ""
    return f"{column} : ({expr})" if column else expr


@dataclass
class ListQuery:
    q: str = ""
    facets: dict[str, str] = field(default_factory=dict)
    systems: list[str] = field(default_factory=list)  # system ids, loaded in ``preds``
    correctness: dict[str, str] = field(default_factory=dict)  # system -> CORRECTNESS
    disagree: bool = False
    answered: bool = False  # only instances every selected system answered
    sort: str = "index"
    mode: str = "plain"  # search text: plain words, or FTS5 syntax ("advanced")
    field: str = ""  # one named text field to search ("" = all the text)

    def validate(self, facet_names: list[str], text_fields: list[str] | None = None) -> None:
        for name in self.facets:
            if name not in facet_names:
                raise BadQuery(f"unknown filter {name!r}; this dataset has "
                               f"{', '.join(facet_names) or 'no filters'}")
        for sys, value in self.correctness.items():
            if sys not in self.systems:
                raise BadQuery(f"correctness filter for {sys!r}, which is not selected")
            if value not in CORRECTNESS:
                raise BadQuery(f"correctness must be one of {', '.join(CORRECTNESS)}")
        if self.sort not in SORTS:
            raise BadQuery(f"sort must be one of {', '.join(SORTS)}")
        if self.sort == "disagreement" and len(self.systems) < 2:
            raise BadQuery("sorting by disagreement needs two or more systems")
        if len(self.q) > MAX_CHARS:
            raise BadQuery(f"the search text is longer than {MAX_CHARS} characters")
        if self.mode not in MODES:
            raise BadQuery(f"mode must be one of {', '.join(MODES)}")
        if self.field and self.field not in (text_fields or []):
            raise BadQuery(f"unknown search field {self.field!r}; this dataset has "
                           f"{', '.join(text_fields or []) or 'no separate fields'}")


def parse_cursor(value: str | None) -> tuple[int, int] | None:
    """``N`` or ``S.N`` -> (score, n); None when absent."""
    if value is None or value == "":
        return None
    m = _CURSOR.match(value)
    if not m:
        raise BadQuery(f"malformed page cursor {value!r}")
    return int(m.group(1) or 0), int(m.group(2))


def _score_sql(k: int) -> str:
    pairs = [f"(p{a}.answer IS NOT p{b}.answer)" for a in range(k) for b in range(a + 1, k)]
    return " + ".join(pairs) if pairs else "0"


def set_budget(db: sqlite3.Connection, seconds: float = BUDGET_S) -> None:
    """Stop every statement on ``db`` once ``seconds`` have passed (SQLite raises
    ``OperationalError('interrupted')``); the connection lives for one request."""
    deadline = time.monotonic() + seconds
    db.set_progress_handler(lambda: int(time.monotonic() > deadline), _TICKS)


class Lister:
    """Builds and runs the list queries of one request against one dataset index. The search
    runs here, once, into ``temp.hits``; the count, the facet counts and the page read it."""

    def __init__(self, db: sqlite3.Connection, query: ListQuery, *,
                 budget_s: float = BUDGET_S) -> None:
        self.db = db
        self.query = query
        column = f"t_{query.field}" if query.field else None
        self.match = match_expression(query.q, query.mode, column)
        set_budget(db, budget_s)
        if self.match:
            db.execute("CREATE TEMP TABLE IF NOT EXISTS hits (n INTEGER PRIMARY KEY)")
            db.execute("DELETE FROM temp.hits")
            try:  # SQLite parses the FTS5 query here; what it rejects is the user's syntax
                db.execute("INSERT INTO temp.hits SELECT rowid FROM fts WHERE fts MATCH ?",
                           (self.match,))
            except sqlite3.OperationalError as exc:
                if budget_exceeded(exc):
                    raise BadQuery.too_slow() from None
                raise BadQuery(f"search syntax: {exc}") from None

    def _from_where(self, *, skip_facet: str | None = None) -> tuple[str, list[Any]]:
        q = self.query
        joins, where, args = [], [], []
        for k, sys in enumerate(q.systems):
            joins.append(f"LEFT JOIN preds p{k} ON p{k}.sys = ? AND p{k}.n = i.n")
            args.append(sys)
        if self.match:
            where.append("i.n IN (SELECT n FROM temp.hits)")
        for name, value in sorted(q.facets.items()):
            if name != skip_facet:
                where.append(f"i.f_{name} = ?")
                args.append(value)
        for k, sys in enumerate(q.systems):
            want = q.correctness.get(sys)
            if want == "correct":
                where.append(f"p{k}.correct = 1")
            elif want == "incorrect":
                where.append(f"p{k}.correct = 0")
            elif want == "missing":
                where.append(f"p{k}.n IS NULL")
        if q.answered:
            where.extend(f"p{k}.n IS NOT NULL" for k in range(len(q.systems)))
        if q.disagree and len(q.systems) >= 2:
            where.append(f"({_score_sql(len(q.systems))}) > 0")
        sql = "FROM items i " + " ".join(joins)
        if where:
            sql += " WHERE " + " AND ".join(where)
        return sql, args

    def _run(self, sql: str, args: list[Any]) -> list[Any]:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.OperationalError as exc:
            if budget_exceeded(exc):
                raise BadQuery.too_slow() from None
            raise

    def count(self) -> int:
        sql, args = self._from_where()
        return int(self._run(f"SELECT count(*) {sql}", args)[0][0])

    def facet_counts(self, names: list[str]) -> dict[str, list[tuple[str, int]]]:
        """Per slice, the count of each value under every other active filter."""
        out = {}
        for name in names:
            sql, args = self._from_where(skip_facet=name)
            rows = self._run(f"SELECT i.f_{name}, count(*) {sql} GROUP BY i.f_{name}", args)
            out[name] = sorted(((str(v), int(c)) for v, c in rows if v is not None),
                               key=lambda x: _natural(x[0]))
        return out

    def page(self, *, after: str | None = None, before: str | None = None,
             size: int = PAGE_SIZE, snippets: bool = True
             ) -> tuple[list[dict[str, Any]], bool, bool]:
        """One page of rows, and whether there are rows before and after it; with a search,
        each row's ``snippet`` (see :meth:`snippets`) unless ``snippets`` is False."""
        q = self.query
        k = len(q.systems)
        score = _score_sql(k) if q.sort == "disagreement" else "0"
        cols = ["i.n", "i.iid", "i.gold", "i.gold_label", "i.title", f"({score}) AS score"]
        for j in range(k):
            cols += [f"p{j}.answer", f"p{j}.correct"]
        sql, args = self._from_where()
        inner = f"SELECT {', '.join(cols)} {sql}"
        a, b = parse_cursor(after), parse_cursor(before)
        if a is not None and b is not None:
            raise BadQuery("give either after or before, not both")
        cond, cargs, backwards = "", [], b is not None
        cursor = a or b
        if cursor is not None:
            s, n = cursor
            if q.sort == "index":
                cond = "WHERE n > ?" if not backwards else "WHERE n < ?"
                cargs = [n]
            elif not backwards:
                cond, cargs = "WHERE (score < ? OR (score = ? AND n > ?))", [s, s, n]
            else:
                cond, cargs = "WHERE (score > ? OR (score = ? AND n < ?))", [s, s, n]
        order = ("score DESC, n ASC" if q.sort == "disagreement" else "n ASC")
        if backwards:
            order = "score ASC, n DESC" if q.sort == "disagreement" else "n DESC"
        rows = self._run(f"SELECT * FROM ({inner}) {cond} ORDER BY {order} LIMIT ?",
                         [*args, *cargs, size + 1])
        more = len(rows) > size
        rows = rows[:size]
        if backwards:
            rows.reverse()
        out = []
        for r in rows:
            row = {"n": r[0], "iid": r[1], "gold": r[2], "gold_label": r[3], "title": r[4],
                   "score": r[5], "cursor": f"{r[5]}.{r[0]}" if q.sort == "disagreement"
                   else str(r[0]), "systems": []}
            for j in range(k):
                row["systems"].append({"answer": r[6 + 2 * j], "correct": r[7 + 2 * j]})
            out.append(row)
        has_before = (more if backwards else cursor is not None) and bool(out)
        has_after = (cursor is not None if backwards else more) and bool(out)
        if snippets and self.match:
            found = self.snippets([row["n"] for row in out])
            for row in out:
                row["snippet"] = found.get(row["n"])
        return out, has_before, has_after

    def snippets(self, ns: list[int]) -> dict[int, list[Segment]]:
        """The passage of each instance ``ns`` around what the search matched, as segments.

        The index keeps no text in its FTS table (``content=''``), so the page's texts are
        put in a temporary FTS5 table with the same columns and tokenizer, and FTS5's
        ``snippet()`` runs the same MATCH there: the passage and the marked words are exactly
        what the search matched, stems and phrases included."""
        if not self.match or not ns:
            return {}
        fields = json.loads(self.db.execute("SELECT value FROM meta WHERE key = 'text_fields'")
                            .fetchone()[0])
        columns = ", ".join(["body", *(f"t_{f}" for f in fields)])
        self.db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.snip USING fts5({columns}, "
                        f"tokenize='{TOKENIZE}')")
        self.db.execute("DELETE FROM temp.snip")
        marks = ",".join("?" * len(ns))
        rows = self._run(f"SELECT n, texts FROM texts WHERE n IN ({marks})", list(ns))
        self.db.executemany(
            f"INSERT INTO temp.snip (rowid, {columns}) VALUES (?{', ?' * (1 + len(fields))})",
            [(n, *(t.replace(_OPEN, "").replace(_CLOSE, "") for t in unpack(blob)))
             for n, blob in rows])
        found = self._run("SELECT rowid, snippet(snip, -1, ?, ?, '…', ?) FROM temp.snip "
                          "WHERE snip MATCH ?", [_OPEN, _CLOSE, SNIPPET_TOKENS, self.match])
        return {int(n): segments(text) for n, text in found if text}

    def position(self, n: int) -> int | None:
        """Where instance ``n`` stands in this list's order (1-based), None if the list's
        filters leave it out: the instance page says "12 of 1,190" within the selection."""
        q = self.query
        score = _score_sql(len(q.systems)) if q.sort == "disagreement" else "0"
        sql, args = self._from_where()
        inner = f"SELECT i.n AS n, ({score}) AS score {sql}"
        mine = self._run(f"SELECT score FROM ({inner}) WHERE n = ?", [*args, n])
        if not mine:
            return None
        s = mine[0][0]
        before = self._run(f"SELECT count(*) FROM ({inner}) WHERE score > ? OR "
                           "(score = ? AND n < ?)", [*args, s, s, n])
        return int(before[0][0]) + 1

    def neighbours(self, n: int) -> tuple[int | None, int | None]:
        """The previous and next instance around ``n`` in this list's order."""
        q = self.query
        cur = str(n)
        if q.sort == "disagreement":
            joins = " ".join(f"LEFT JOIN preds p{k} ON p{k}.sys = ? AND p{k}.n = i.n"
                             for k in range(len(q.systems)))
            row = self._run(f"SELECT ({_score_sql(len(q.systems))}) FROM items i {joins} "
                            "WHERE i.n = ?", [*q.systems, n])
            cur = f"{row[0][0] if row else 0}.{n}"
        prev, _, _ = self.page(before=cur, size=1, snippets=False)
        nxt, _, _ = self.page(after=cur, size=1, snippets=False)
        return (prev[0]["n"] if prev else None), (nxt[0]["n"] if nxt else None)


def _natural(value: str) -> tuple[int, int | str]:
    return (0, int(value)) if value.isdigit() else (1, value)


def stemmed_forms(rows: list[dict[str, Any]], q: str) -> list[str]:
    """The word forms a search matched on a page of results (from their snippets), when they
    are not only the words typed: "nurses" also finds "nursed" (Porter stems), and the page
    says so instead of leaving it to be guessed."""
    typed = {w.lower() for w in _WORD.findall(q)}
    forms = sorted({text.strip().lower() for row in rows for text, hit in row.get("snippet")
                    or () if hit and text.strip()}, key=lambda w: (w not in typed, w))
    return forms if set(forms) - typed else []


def segments(snippet: str) -> list[Segment]:
    """A marked snippet as (text, matched) segments, runs of white space as one space."""
    out: list[Segment] = []
    pos = 0
    for m in _MARKED.finditer(snippet):
        if m.start() > pos:
            out.append((snippet[pos:m.start()], False))
        out.append((m.group(1), True))
        pos = m.end()
    if pos < len(snippet):
        out.append((snippet[pos:], False))
    return [(re.sub(r"\s+", " ", text), hit) for text, hit in out if text]
