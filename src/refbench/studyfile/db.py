"""The study file: SQLite in WAL mode, one row per answer, an append-only answer log.

Why SQLite with WAL and ``synchronous=FULL``: many annotators write at once while the admin
page reads, and an answer acknowledged to a browser must survive the server being killed. Every
save is one short ``BEGIN IMMEDIATE`` transaction; a foreign key ties each answer to an
assignment, so nobody can answer an item that was not given to them.
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError

SCHEMA_VERSION = "1"
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE items (
  id TEXT PRIMARY KEY,
  position INTEGER NOT NULL UNIQUE,
  payload TEXT NOT NULL,
  gold TEXT,
  condition TEXT NOT NULL DEFAULT '',
  gold_check INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE annotators (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  token TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('annotator', 'admin'))
);
CREATE TABLE assignments (
  annotator_id INTEGER NOT NULL REFERENCES annotators(id),
  position INTEGER NOT NULL,
  item_id TEXT NOT NULL REFERENCES items(id),
  options TEXT NOT NULL DEFAULT 'null',
  PRIMARY KEY (annotator_id, position),
  UNIQUE (annotator_id, item_id)
);
CREATE TABLE answers (
  annotator_id INTEGER NOT NULL,
  item_id TEXT NOT NULL,
  unit TEXT NOT NULL,
  value TEXT NOT NULL,
  revision INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (annotator_id, item_id, unit),
  FOREIGN KEY (annotator_id, item_id) REFERENCES assignments(annotator_id, item_id)
);
CREATE TABLE answer_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  annotator_id INTEGER NOT NULL,
  item_id TEXT NOT NULL,
  unit TEXT NOT NULL,
  value TEXT NOT NULL,
  at TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class Item:
    id: str
    position: int
    payload: dict[str, Any]
    gold: str | None
    condition: str
    gold_check: bool


@dataclass(frozen=True)
class Annotator:
    id: int
    name: str
    token: str
    role: str


@dataclass(frozen=True)
class Answer:
    annotator: str
    item_id: str
    unit: str
    value: Any
    revision: int
    updated_at: str


def now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


def connect(path: str | Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit) with WAL, full sync,
    foreign keys and a busy timeout long enough for many concurrent writers."""
    conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None,
                           check_same_thread=False)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA busy_timeout = 30000")
    return conn


def _item(row: tuple[Any, ...]) -> Item:
    return Item(row[0], row[1], json.loads(row[2]), row[3], row[4], bool(row[5]))


class StudyStore:
    """Reads and writes one study file. Cheap to create: the web app makes one per request."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise RefbenchError("study file not found", path=self.path)
        with open(self.path, "rb") as fh:
            magic = fh.read(16)
        if magic != b"SQLite format 3\x00":
            raise RefbenchError("not a refbench study file (not SQLite)", path=self.path)
        self.conn = connect(self.path)
        try:
            version = self.conn.execute(
                "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.DatabaseError:
            self.conn.close()
            raise RefbenchError("not a refbench study file", path=self.path) from None
        found = json.loads(version[0]) if version else None
        if found != SCHEMA_VERSION:
            self.conn.close()
            raise RefbenchError(f"study schema {found or '?'} is not {SCHEMA_VERSION} (made by "
                                "another refbench version)", path=self.path)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> StudyStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # -- reading -------------------------------------------------------------------------
    def meta(self) -> dict[str, Any]:
        return {k: json.loads(v) for k, v in self.conn.execute("SELECT key, value FROM meta")}

    @property
    def kind(self) -> str:
        return str(self.meta()["kind"])

    def items(self) -> list[Item]:
        return [_item(r) for r in self.conn.execute(
            "SELECT id, position, payload, gold, condition, gold_check FROM items "
            "ORDER BY position")]

    def item(self, item_id: str) -> Item | None:
        row = self.conn.execute("SELECT id, position, payload, gold, condition, gold_check "
                                "FROM items WHERE id = ?", (item_id,)).fetchone()
        return _item(row) if row else None

    def annotators(self, role: str | None = "annotator") -> list[Annotator]:
        sql = "SELECT id, name, token, role FROM annotators"
        rows = (self.conn.execute(sql + " WHERE role = ? ORDER BY id", (role,)) if role
                else self.conn.execute(sql + " ORDER BY id"))
        return [Annotator(*r) for r in rows]

    def by_token(self, token: str) -> Annotator | None:
        row = self.conn.execute("SELECT id, name, token, role FROM annotators WHERE token = ?",
                                (token,)).fetchone()
        return Annotator(*row) if row else None

    def assignments(self, annotator_id: int) -> list[tuple[int, str, Any]]:
        """(position, item id, options) in the annotator's own order."""
        return [(p, i, json.loads(o)) for p, i, o in self.conn.execute(
            "SELECT position, item_id, options FROM assignments WHERE annotator_id = ? "
            "ORDER BY position", (annotator_id,))]

    def answers_of(self, annotator_id: int, item_id: str | None = None) -> dict[str, dict[str,
                                                                                       Any]]:
        """{item id: {unit: value}} for one annotator (optionally one item)."""
        sql = "SELECT item_id, unit, value FROM answers WHERE annotator_id = ?"
        args: tuple[Any, ...] = (annotator_id,)
        if item_id is not None:
            sql += " AND item_id = ?"
            args += (item_id,)
        out: dict[str, dict[str, Any]] = {}
        for item, unit, value in self.conn.execute(sql, args):
            out.setdefault(item, {})[unit] = json.loads(value)
        return out

    def all_answers(self) -> list[Answer]:
        return [Answer(name, item, unit, json.loads(value), rev, at)
                for name, item, unit, value, rev, at in self.conn.execute(
                    "SELECT a.name, x.item_id, x.unit, x.value, x.revision, x.updated_at "
                    "FROM answers x JOIN annotators a ON a.id = x.annotator_id "
                    "JOIN items i ON i.id = x.item_id ORDER BY i.position, a.id, x.unit")]

    def log_size(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM answer_log").fetchone()[0])

    # -- writing -------------------------------------------------------------------------
    def save_answer(self, annotator_id: int, item_id: str, unit: str, value: Any) -> int:
        """Insert or replace one answer and log it; returns its revision number."""
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        at = now()
        with self.transaction() as conn:
            row = conn.execute(
                "INSERT INTO answers (annotator_id, item_id, unit, value, revision, updated_at) "
                "VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (annotator_id, item_id, unit) DO UPDATE "
                "SET value = excluded.value, revision = answers.revision + 1, "
                "updated_at = excluded.updated_at RETURNING revision",
                (annotator_id, item_id, unit, text, at)).fetchone()
            conn.execute("INSERT INTO answer_log (annotator_id, item_id, unit, value, at) "
                         "VALUES (?, ?, ?, ?, ?)", (annotator_id, item_id, unit, text, at))
        return int(row[0])


def write_schema(conn: sqlite3.Connection, meta: dict[str, Any]) -> None:
    conn.executescript(SCHEMA)
    conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                     [("schema_version", json.dumps(SCHEMA_VERSION)),
                      *((k, json.dumps(v, ensure_ascii=False)) for k, v in meta.items())])
