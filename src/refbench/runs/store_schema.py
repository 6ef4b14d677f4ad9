"""The results store's schema, where the store is found, and how SQLite's failures read to a
person (see :mod:`refbench.runs.store` for the schema's documentation)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from refbench.core.errors import E_INPUT, E_OUTPUT, RefbenchError

SCHEMA_VERSION = 2
APPLICATION_ID = 0x52664231  # "Rfb1"

TABLES = """
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    model TEXT NOT NULL,
    model_fingerprint TEXT NOT NULL,
    task TEXT NOT NULL,
    data TEXT NOT NULL,
    data_sha256 TEXT,
    n INTEGER NOT NULL,
    accuracy REAL,
    metrics TEXT NOT NULL,
    out_dir TEXT,
    split TEXT,
    system TEXT
);
CREATE TABLE IF NOT EXISTS run_tags (
    run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (run_id, tag)
);
CREATE TABLE IF NOT EXISTS predictions (
    model_fingerprint TEXT NOT NULL,
    instance_hash TEXT NOT NULL,
    output TEXT NOT NULL,
    PRIMARY KEY (model_fingerprint, instance_hash)
);
"""
V1_RUN_COLUMNS = {"run_id", "created", "model", "model_fingerprint", "task", "data",
                   "data_sha256", "n", "accuracy", "metrics", "out_dir"}
LIST_COLUMNS = ("run_id", "created", "model", "system", "task", "data", "split", "n",
                 "accuracy", "out_dir")
ROW_COLUMNS = ("run_id", "created", "model", "system", "model_fingerprint", "task", "data",
                "data_sha256", "split", "n", "accuracy", "metrics", "out_dir")


class StoreError(RefbenchError):
    """The results store cannot be used: damaged, foreign, read-only, locked or missing."""

    def __init__(self, message: str, *, path: str | Path, code: int = E_INPUT,
                 kind: str = "other") -> None:
        super().__init__(message, code=code, path=path)
        self.kind = kind


def store_timeout() -> float:
    try:
        return float(os.environ.get("REFBENCH_STORE_TIMEOUT", "60"))
    except ValueError:
        return 60.0


def translate_error(exc: sqlite3.Error, path: Path, timeout: float) -> StoreError:
    """One line a person can act on, for each way SQLite reports a store it cannot use."""
    msg = str(exc)
    low = msg.lower()
    if "locked" in low or "busy" in low:
        return StoreError(f"the results store is locked by another process (waited "
                          f"{timeout:g} s; $REFBENCH_STORE_TIMEOUT sets how long)", path=path,
                          code=E_OUTPUT, kind="locked")
    if "readonly" in low or "read-only" in low:
        return StoreError("the results store is read-only here; give a writable one with "
                          "--store PATH (or REFBENCH_STORE), or use --no-store", path=path,
                          code=E_OUTPUT, kind="readonly")
    if "full" in low or "no space" in low:
        return StoreError("cannot write the results store (no space left on device)", path=path,
                          code=E_OUTPUT, kind="full")
    if "not a database" in low or "malformed" in low or "disk i/o" in low or "corrupt" in low:
        return StoreError(f"the results store is damaged ({msg}); move it aside and start a new "
                          "one, or salvage it with: sqlite3 FILE .recover | sqlite3 NEW",
                          path=path, kind="damaged")
    if "unable to open" in low:
        return StoreError(f"cannot open the results store ({msg})", path=path, code=E_OUTPUT,
                          kind="open")
    return StoreError(f"results store error ({msg})", path=path, kind="other")


def schema_statements(script: str) -> list[str]:
    """The statements of a schema script, to run inside one transaction (``executescript``
    would commit whatever transaction is open)."""
    return [s.strip() for s in script.split(";") if s.strip()]


def writable(path: Path) -> bool:
    """SQLite needs the file and its folder (for the journal) to be writable."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
