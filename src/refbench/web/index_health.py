"""Whether an index file on disk can be trusted: the temporary files of builds that were
stopped, and the completeness record every finished index carries.

An index is built under a temporary name (:func:`temporary_name`, holding the builder's process
id) and renamed when complete. A build stopped by Ctrl-C removes its temporary file; one stopped
by SIGKILL cannot, so the next ``refbench serve`` removes every temporary file whose process is
gone (:func:`clean_stale`). A finished index records how many rows each of its tables holds
(:func:`completeness_record`); an index whose tables hold other counts (rows deleted by hand, a
file copied in part) is not current and is built again (:func:`incomplete`).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

COMPLETE_KEY = "complete"
# Every table holding one row per instance (the FTS table's own per-row table included).
COUNTED = ("items", "payloads", "texts", "fts_docsize")
_TEMP = re.compile(r"^\..+\.sqlite\.(\d+)\.(\d+)\.tmp$")


def temporary_name(target: Path) -> Path:
    """Where ``target`` is built: a hidden name beside it, holding this process's id (which
    :func:`clean_stale` reads) and the building thread's."""
    return target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def clean_stale(folder: Path) -> list[Path]:
    """Remove the temporary index files in ``folder`` whose builder process is gone (killed
    while indexing); returns what was removed. A build in progress (its process alive, this
    one's included) is left alone."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    return _unlink(p for p in sorted(entries)
                   if (m := _TEMP.match(p.name)) is not None and not _alive(int(m.group(1))))


def _unlink(paths: Iterable[Path]) -> list[Path]:
    """Remove each of ``paths`` that can be removed; returns those removed."""
    removed = []
    for p in paths:
        try:
            p.unlink()
        except OSError:
            continue
        removed.append(p)
    return removed


def completeness_record(db: sqlite3.Connection) -> str:
    """The rows each counted table holds, as the JSON text an index keeps in its meta table."""
    return json.dumps({t: _count(db, t) for t in COUNTED}, sort_keys=True)


def _count(db: sqlite3.Connection, table: str) -> int:
    return int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def incomplete(db: sqlite3.Connection) -> str | None:
    """Why an index is not whole (None: it is): no completeness record (a build that never
    finished, an index of an older refbench), or a table holding other rows than recorded."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (COMPLETE_KEY,)).fetchone()
    n_row = db.execute("SELECT value FROM meta WHERE key = 'n'").fetchone()
    if row is None or n_row is None:
        return "it has no completeness record"
    try:
        recorded = json.loads(row[0])
        n = int(n_row[0])
    except (ValueError, TypeError):
        return "its completeness record is not readable"
    if not isinstance(recorded, dict):
        return "its completeness record is not readable"
    for table in COUNTED:
        want = recorded.get(table)
        if table != "fts_docsize" and want != n:
            return f"its record says {want} rows of {table} for {n} instances"
        have = _count(db, table)
        if have != want:
            return f"{table} holds {have} rows, {want} when it was built"
    return None


def remove_own_temporaries(folder: Path) -> list[Path]:
    """Remove the temporary index files this process is writing in ``folder`` (the server is
    stopping and a build did not stop in time: its file is not kept)."""
    return _unlink(sorted(folder.glob(f".*.sqlite.{os.getpid()}.*.tmp")))
