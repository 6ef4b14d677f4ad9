"""The SQLite results store: every run, and a prediction cache keyed by (model fingerprint,
instance hash) so that an interrupted run resumes where it stopped.

Where it is: ``--store PATH``, else ``$REFBENCH_STORE``, else the nearest
``.refbench/results.sqlite`` in the current folder or one of its parents, else
``./.refbench/results.sqlite`` (created by the first ``refbench run``). Results belong to the
project a user works in, not to the user: two checkouts never mix their runs.

Schema, version 2 (``PRAGMA user_version``; ``PRAGMA application_id`` marks the file as a
refbench store)::

    runs(run_id INTEGER PRIMARY KEY, created TEXT (UTC, ISO 8601), model TEXT (the spec given),
         model_fingerprint TEXT, task TEXT, data TEXT (path as given), data_sha256 TEXT,
         n INTEGER, accuracy REAL (fraction, NULL without gold), metrics TEXT (the run's
         metrics.json), out_dir TEXT, split TEXT, system TEXT (name in tables))
    run_tags(run_id INTEGER REFERENCES runs, tag TEXT, PRIMARY KEY (run_id, tag))
    predictions(model_fingerprint TEXT, instance_hash TEXT, output TEXT (JSON),
                PRIMARY KEY (model_fingerprint, instance_hash))

A run record stands for an output folder: a new run into a recorded folder updates that record
(same id and tags). Version 1 (refbench 0.1.0: no ``split``, ``system`` or ``run_tags``) is
migrated in place when opened for writing and read as it is otherwise. Every write is one short
``BEGIN IMMEDIATE`` transaction; a store locked by another process is waited for
(``$REFBENCH_STORE_TIMEOUT`` seconds, default 60). A damaged, foreign, read-only or locked
store is an error naming the file. Every store is checked when it is opened (SQLite's
``quick_check``: page structure, record formats, NOT NULL columns): a damaged one is refused
before anything reads or writes it, so commands never list garbage nor write into a file that
SQLite can no longer keep consistent. Commands that only read open it read-only.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from refbench.core.errors import E_OUTPUT
from refbench.core.store_paths import (
    default_store_path,
    find_store,
    legacy_store_path,
    store_origin,
)
from refbench.runs.store_rows import RunRow, typed_row
from refbench.runs.store_schema import (
    APPLICATION_ID,
    LIST_COLUMNS,
    ROW_COLUMNS,
    SCHEMA_VERSION,
    TABLES,
    V1_RUN_COLUMNS,
    StoreError,
    schema_statements,
    store_timeout,
    translate_error,
    writable,
)

if TYPE_CHECKING:  # the store is opened without loading the models (results ls, report)
    import refbench.models.base

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "Store", "StoreError", "default_store_path",
           "find_store", "legacy_store_path"]


class Store:
    """A results store file. ``create=False`` refuses to make a new one (listing commands);
    ``readonly=True`` never writes (not even a migration)."""

    def __init__(self, path: str | Path | None = None, *, create: bool = True,
                 readonly: bool = False) -> None:
        self.explicit = path is not None or bool(os.environ.get("REFBENCH_STORE"))
        self.given = path is not None
        self.path = Path(path) if path is not None else default_store_path()
        self.timeout = store_timeout()
        self.readonly = readonly
        self.notes: list[str] = []
        self.version = SCHEMA_VERSION
        existed = self.path.is_file()
        self._made: list[Path] = []  # folders made for a new store (removed if it fails)
        if not existed and (readonly or not create):
            raise StoreError(self._missing_message(), path=self.path, kind="missing")
        if not readonly and existed and not writable(self.path):
            raise StoreError("the results store is read-only here; give a writable one with "
                             "--store PATH (or REFBENCH_STORE), or use --no-store",
                             path=self.path, code=E_OUTPUT, kind="readonly")
        try:
            if not existed:
                missing = [d for d in (self.path.parent, *self.path.parent.parents)
                           if not d.exists()]
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._made = missing
            uri = f"file:{self.path.resolve()}" + ("?mode=ro" if readonly else "")
            self.db = sqlite3.connect(uri, uri=True, timeout=self.timeout,
                                      isolation_level=None)
        except OSError as exc:
            raise StoreError(f"cannot create the results store ({exc.strerror})",
                             path=self.path, code=E_OUTPUT, kind="open") from None
        except sqlite3.Error as exc:
            raise translate_error(exc, self.path, self.timeout) from None
        try:
            with self._guard():
                if existed:
                    self._check_integrity()
                self.db.execute("PRAGMA foreign_keys = ON")
                self._open_schema(new=not existed)
        except BaseException:
            self.db.close()
            if not existed:
                self._remove_new_file()
            raise
        if not existed and not self.explicit and legacy_store_path().is_file():
            self.notes.append(
                f"note: refbench now keeps results per project, here in {self.path}; the "
                f"store older versions kept per user is at {legacy_store_path()}: copy its "
                f"runs with `refbench results import {legacy_store_path()}`, or read it with "
                "--store")

    def describe(self) -> str:
        """The line every command that uses a store prints: which store, and why that one."""
        how = "given with --store" if self.given else store_origin(self.path)
        return f"store: {self.path.resolve()} ({how})"

    def _check_integrity(self) -> None:
        """Refuse a damaged store (its header may be intact while pages are not)."""
        self.db.text_factory = lambda b: b.decode("utf-8", "replace")  # damage is not UTF-8
        try:
            rows = [str(r[0]) for r in self.db.execute("PRAGMA quick_check(5)")]
        finally:
            self.db.text_factory = str
        if rows != ["ok"]:
            found = "; ".join(" ".join(r.split()) for r in rows)
            raise StoreError(f"the results store is damaged (integrity check: {found[:300]}); "
                             "move it aside and start a new one, or salvage it with: sqlite3 "
                             "FILE .recover | sqlite3 NEW", path=self.path, kind="damaged")

    def _remove_new_file(self) -> None:
        """A store this call created and could not finish (a full disk) is removed, with the
        folder made for it: nothing half-made is left."""
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                Path(f"{self.path}{suffix}").unlink()
        for folder in self._made:
            with contextlib.suppress(OSError):
                folder.rmdir()

    def _missing_message(self) -> str:
        msg = "no results store here (refbench run creates one; --store or REFBENCH_STORE " \
              "name another)"
        if not self.explicit and legacy_store_path().is_file():
            msg += (f"; refbench 0.1.0 kept one per user at {legacy_store_path()}: "
                    f"`refbench results import {legacy_store_path()}` copies its runs here")
        return msg

    # --- opening, checking and migrating the schema ---------------------------------------
    def _open_schema(self, *, new: bool) -> None:
        app_id = self.db.execute("PRAGMA application_id").fetchone()[0]
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
        if not tables and app_id == 0:
            if self.readonly:
                raise StoreError("an empty file, not a results store", path=self.path)
            with self._write():
                for statement in schema_statements(TABLES):
                    self.db.execute(statement)
                self.db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            return
        if app_id == APPLICATION_ID:
            if version > SCHEMA_VERSION:
                raise StoreError(f"the results store has schema version {version}, newer than "
                                 f"this refbench's ({SCHEMA_VERSION}); upgrade refbench",
                                 path=self.path)
            self.version = version
        elif app_id == 0 and {"runs", "predictions"} <= tables \
                and self._columns("runs") >= V1_RUN_COLUMNS:
            self.version = 1
        else:
            shown = ", ".join(sorted(tables)[:6]) or "none"
            raise StoreError(f"not a refbench results store (its tables: {shown}); give another "
                             "path with --store", path=self.path, kind="foreign")
        if self.version < SCHEMA_VERSION and not self.readonly:
            self._migrate()

    def _columns(self, table: str) -> set[str]:
        return {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}

    def _migrate(self) -> None:
        with self._write():
            have = self._columns("runs")
            for col in ("split", "system"):
                if col not in have:
                    self.db.execute(f"ALTER TABLE runs ADD COLUMN {col} TEXT")
            for statement in schema_statements(TABLES):
                self.db.execute(statement)
            self.db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        self.version = SCHEMA_VERSION

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise translate_error(exc, self.path, self.timeout) from None
        except UnicodeDecodeError:
            raise StoreError("the results store is damaged (a text field is not UTF-8); move "
                             "it aside and start a new one", path=self.path,
                             kind="damaged") from None

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        """One short write transaction (the lock is taken up front, so no deadlock)."""
        if self.readonly:
            raise StoreError("the results store was opened read-only", path=self.path,
                             code=E_OUTPUT, kind="readonly")
        with self._guard():
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- prediction cache ------------------------------------------------------------------
    def cached(self, fingerprint: str, hashes: Sequence[str]
               ) -> dict[str, refbench.models.base.ModelOutput]:
        """The cached outputs of the model ``fingerprint`` for the instances ``hashes`` (by
        instance hash; those not cached are left out)."""
        from refbench.models.base import ModelOutput

        out: dict[str, ModelOutput] = {}
        with self._guard():
            for i in range(0, len(hashes), 500):
                chunk = list(hashes[i:i + 500])
                marks = ",".join("?" * len(chunk))
                for h, output in self.db.execute(
                        f"SELECT instance_hash, output FROM predictions WHERE "
                        f"model_fingerprint = ? AND instance_hash IN ({marks})",
                        [fingerprint, *chunk]):
                    out[h] = ModelOutput.from_json(json.loads(output))
        return out

    def save_predictions(self, fingerprint: str,
                         items: Iterable[tuple[str, refbench.models.base.ModelOutput]]) -> None:
        """Cache the model ``fingerprint``'s outputs, by instance hash."""
        rows = [(fingerprint, h, json.dumps(o.to_json(), ensure_ascii=False)) for h, o in items]
        with self._write():
            self.db.executemany("INSERT OR REPLACE INTO predictions VALUES (?, ?, ?)", rows)

    # --- runs ------------------------------------------------------------------------------
    def add_run(self, *, created: str, model: str, fingerprint: str, task: str, data: str,
                data_sha256: str | None, n: int, metrics: dict[str, Any],
                out_dir: str | None, split: str | None = None,
                system: str | None = None, replace: bool = True) -> int:
        """Record a run; returns its id. A run written to an output folder that an earlier
        run recorded replaces that record (the folder now holds the new run's files), keeping
        its id and tags, unless ``replace`` is False."""
        values = (created, model, fingerprint, task, data, data_sha256, n,
                  metrics.get("accuracy"), json.dumps(metrics, ensure_ascii=False, default=str),
                  out_dir, split, system)
        columns = ("created, model, model_fingerprint, task, data, data_sha256, n, accuracy, "
                   "metrics, out_dir, split, system")
        with self._write():
            old = self.db.execute("SELECT run_id FROM runs WHERE out_dir = ? ORDER BY run_id "
                                  "DESC", (out_dir,)).fetchone() \
                if replace and out_dir is not None else None
            if old is not None:
                sets = ", ".join(f"{c.strip()} = ?" for c in columns.split(","))
                self.db.execute(f"UPDATE runs SET {sets} WHERE run_id = ?", (*values, old[0]))
                return int(old[0])
            cur = self.db.execute(f"INSERT INTO runs ({columns}) VALUES "
                                  f"({', '.join('?' * len(values))})", values)
        return int(cur.lastrowid or 0)

    def _select(self, columns: Sequence[str]) -> str:
        have = self._columns("runs")
        return ", ".join(c if c in have else f"NULL AS {c}" for c in columns)

    def _tags(self, run_ids: Sequence[int]) -> dict[int, list[str]]:
        if self.version < 2 or not run_ids:
            return {}
        out: dict[int, list[str]] = {}
        marks = ",".join("?" * len(run_ids))
        for rid, tag in self.db.execute(
                f"SELECT run_id, tag FROM run_tags WHERE run_id IN ({marks}) ORDER BY tag",
                list(run_ids)):
            out.setdefault(rid, []).append(tag)
        return out

    def runs(self, *, limit: int | None = 50, task: str | None = None,
             tag: str | None = None, ids: Sequence[int] | None = None) -> list[RunRow]:
        """Recorded runs, newest first (``limit=None``: all)."""
        where: list[str] = []
        args: list[Any] = []
        if task is not None:
            where.append("task = ?")
            args.append(task)
        if tag is not None:
            if self.version < 2:
                return []
            where.append("run_id IN (SELECT run_id FROM run_tags WHERE tag = ?)")
            args.append(tag)
        if ids is not None:
            where.append(f"run_id IN ({','.join('?' * len(ids))})")
            args.extend(int(i) for i in ids)
        with self._guard():
            sql = f"SELECT {self._select(LIST_COLUMNS)} FROM runs"
            if where:
                sql += " WHERE " + " AND ".join(where)
            sql += " ORDER BY run_id DESC"
            if limit is not None:
                sql += f" LIMIT {int(limit)}"
            rows = [typed_row(dict(zip(LIST_COLUMNS, r, strict=True)), self.path)
                    for r in self.db.execute(sql, args)]
            tags = self._tags([r["run_id"] for r in rows])
        for r in rows:
            r["tags"] = tags.get(r["run_id"], [])
        return rows

    def get(self, run_id: int) -> RunRow:
        with self._guard():
            row = self.db.execute(f"SELECT {self._select(ROW_COLUMNS)} FROM runs "
                                  "WHERE run_id = ?", (run_id,)).fetchone()
            if row is None:
                raise StoreError(f"no run {run_id} in the results store", path=self.path,
                                 kind="no-run")
            out = typed_row(dict(zip(ROW_COLUMNS, row, strict=True)), self.path)
            out["tags"] = self._tags([run_id]).get(run_id, [])
        return out  # every column typed, metrics parsed

    def remove(self, run_ids: Sequence[int]) -> None:
        """Forget runs (their output folders and the prediction cache stay)."""
        for rid in run_ids:
            self.get(rid)
        with self._write():
            for rid in run_ids:
                self.db.execute("DELETE FROM run_tags WHERE run_id = ?", (rid,))
                self.db.execute("DELETE FROM runs WHERE run_id = ?", (rid,))

    def tag(self, run_id: int, tags: Sequence[str], *, remove: bool = False) -> list[str]:
        """Add (or remove) tags; returns the run's tags afterwards."""
        self.get(run_id)
        with self._write():
            for t in tags:
                if remove:
                    self.db.execute("DELETE FROM run_tags WHERE run_id = ? AND tag = ?",
                                    (run_id, t))
                else:
                    self.db.execute("INSERT OR IGNORE INTO run_tags VALUES (?, ?)", (run_id, t))
        tags_now: list[str] = self.get(run_id)["tags"]
        return tags_now

    def import_from(self, other: Store) -> tuple[int, int]:
        """Copy another store's runs (those not already here) and its prediction cache;
        returns (runs copied, predictions copied)."""
        have = {(r["created"], r["model"], r["data"], r["out_dir"])
                for r in self.runs(limit=None)}
        copied = 0
        for row in reversed(other.runs(limit=None)):
            if (row["created"], row["model"], row["data"], row["out_dir"]) in have:
                continue
            full = other.get(row["run_id"])
            new_id = self.add_run(
                created=full["created"], model=full["model"],
                fingerprint=full["model_fingerprint"], task=full["task"], data=full["data"],
                data_sha256=full["data_sha256"], n=full["n"], metrics=full["metrics"],
                out_dir=full["out_dir"], split=full["split"], system=full["system"],
                replace=False)
            if full["tags"]:
                self.tag(new_id, full["tags"])
            copied += 1
        with other._guard():
            preds = other.db.execute("SELECT model_fingerprint, instance_hash, output "
                                     "FROM predictions").fetchall()
        with self._write():
            before = self.db.total_changes
            self.db.executemany("INSERT OR IGNORE INTO predictions VALUES (?, ?, ?)", preds)
            added = self.db.total_changes - before
        return copied, added
