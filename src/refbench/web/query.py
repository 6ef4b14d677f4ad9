"""Instance lists: full-text search, slice filters, per-system correctness filters, ordering by
disagreement, counts, and keyset pagination, each one SQL query over a dataset's index.

Keyset pagination (``after``/``before`` a cursor) instead of OFFSET: page 900 of a 100,000-
instance suite costs what page 1 costs. A cursor is the last row's position in the order: the
instance number, or ``score.number`` when sorted by disagreement. Bad input (an unknown slice, a
malformed cursor, FTS5 query syntax SQLite rejects) raises :class:`BadQuery`, shown as a 400.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from typing import Any

PAGE_SIZE = 50
CORRECTNESS = ("correct", "incorrect", "missing")
SORTS = ("index", "disagreement")
_CURSOR = re.compile(r"^(?:(\d+)\.)?(\d+)$")


class BadQuery(ValueError):
    """The request asks for something malformed (HTTP 400)."""


@dataclass
class ListQuery:
    q: str = ""
    facets: dict[str, str] = field(default_factory=dict)
    systems: list[str] = field(default_factory=list)  # system ids, loaded in ``preds``
    correctness: dict[str, str] = field(default_factory=dict)  # system -> CORRECTNESS
    disagree: bool = False
    answered: bool = False  # only instances every selected system answered
    sort: str = "index"

    def validate(self, facet_names: list[str]) -> None:
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
        if len(self.q) > 500:
            raise BadQuery("the search text is longer than 500 characters")


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


class Lister:
    """Builds and runs the list queries of one request against one dataset index."""

    def __init__(self, db: sqlite3.Connection, query: ListQuery) -> None:
        self.db = db
        self.query = query
        if query.q.strip():
            try:  # SQLite parses the FTS5 query here; what it rejects is the user's syntax
                db.execute("SELECT rowid FROM fts WHERE fts MATCH ? LIMIT 1", (query.q,))
            except sqlite3.OperationalError as exc:
                raise BadQuery(f"search syntax: {exc}") from None

    def _from_where(self, *, skip_facet: str | None = None) -> tuple[str, list[Any]]:
        q = self.query
        joins, where, args = [], [], []
        for k, sys in enumerate(q.systems):
            joins.append(f"LEFT JOIN preds p{k} ON p{k}.sys = ? AND p{k}.n = i.n")
            args.append(sys)
        if q.q.strip():
            where.append("i.n IN (SELECT rowid FROM fts WHERE fts MATCH ?)")
            args.append(q.q)
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
        return self.db.execute(sql, args).fetchall()

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
             size: int = PAGE_SIZE) -> tuple[list[dict[str, Any]], bool, bool]:
        """One page of rows, and whether there are rows before and after it."""
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
        return out, has_before, has_after

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
        prev, _, _ = self.page(before=cur, size=1)
        nxt, _, _ = self.page(after=cur, size=1)
        return (prev[0]["n"] if prev else None), (nxt[0]["n"] if nxt else None)


def _natural(value: str) -> tuple[int, int | str]:
    return (0, int(value)) if value.isdigit() else (1, value)
