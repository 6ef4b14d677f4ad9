"""The SQLite results store: every run, and a prediction cache keyed by (model fingerprint,
instance hash) so that an interrupted run resumes where it stopped.

Default location: ``$REFBENCH_STORE``, else ``$XDG_DATA_HOME/refbench/results.sqlite``, else
``~/.local/share/refbench/results.sqlite``.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError

SCHEMA = """
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
    out_dir TEXT
);
CREATE TABLE IF NOT EXISTS predictions (
    model_fingerprint TEXT NOT NULL,
    instance_hash TEXT NOT NULL,
    output TEXT NOT NULL,
    PRIMARY KEY (model_fingerprint, instance_hash)
);
"""


def default_store_path() -> Path:
    if os.environ.get("REFBENCH_STORE"):
        return Path(os.environ["REFBENCH_STORE"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "refbench" / "results.sqlite"


class Store:
    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_store_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(self.path))
            self.db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise RefbenchError(f"cannot open the results store ({exc})", path=self.path) from None

    def close(self) -> None:
        self.db.close()

    # --- prediction cache ------------------------------------------------------------------
    def cached(self, fingerprint: str, hashes: Sequence[str]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for i in range(0, len(hashes), 500):
            chunk = list(hashes[i:i + 500])
            marks = ",".join("?" * len(chunk))
            for h, output in self.db.execute(
                    f"SELECT instance_hash, output FROM predictions WHERE model_fingerprint = ? "
                    f"AND instance_hash IN ({marks})", [fingerprint, *chunk]):
                out[h] = json.loads(output)
        return out

    def save_predictions(self, fingerprint: str, items: Iterable[tuple[str, dict[str, Any]]]
                         ) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO predictions VALUES (?, ?, ?)",
            [(fingerprint, h, json.dumps(o, ensure_ascii=False)) for h, o in items])
        self.db.commit()

    # --- runs ------------------------------------------------------------------------------
    def add_run(self, *, created: str, model: str, fingerprint: str, task: str, data: str,
                data_sha256: str | None, n: int, metrics: dict[str, Any],
                out_dir: str | None) -> int:
        cur = self.db.execute(
            "INSERT INTO runs (created, model, model_fingerprint, task, data, data_sha256, n, "
            "accuracy, metrics, out_dir) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (created, model, fingerprint, task, data, data_sha256, n, metrics.get("accuracy"),
             json.dumps(metrics, ensure_ascii=False), out_dir))
        self.db.commit()
        return int(cur.lastrowid or 0)

    def runs(self, *, limit: int = 50) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT run_id, created, model, task, data, n, accuracy FROM runs "
            "ORDER BY run_id DESC LIMIT ?", (limit,)).fetchall()
        keys = ("run_id", "created", "model", "task", "data", "n", "accuracy")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def get(self, run_id: int) -> dict[str, Any]:
        row = self.db.execute(
            "SELECT run_id, created, model, model_fingerprint, task, data, data_sha256, n, "
            "accuracy, metrics, out_dir FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise RefbenchError(f"no run {run_id} in the store", path=self.path)
        keys = ("run_id", "created", "model", "model_fingerprint", "task", "data",
                "data_sha256", "n", "accuracy", "metrics", "out_dir")
        out = dict(zip(keys, row, strict=True))
        out["metrics"] = json.loads(out["metrics"])
        return out
