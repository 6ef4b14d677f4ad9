"""A system's predictions, loaded into a dataset's index next to the instances they answer.

Loaded on first use and reloaded only when a predictions file changes
(:attr:`~refbench.web.runs.System.stamp`: the system's identity and its files' sizes and
times). Choice predictions are matched to instances by id (KITMUS ids without their view
segment); each keeps its answer, whether it is right, and its scores and chain of facts for the
instance page. A documents task's predictions (TNE) are read by the task
(:meth:`~refbench.tasks.capabilities.Documents.outputs`) against the dataset's own documents.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import read_jsonl
from refbench.tasks.capabilities import Documents, WebView
from refbench.web.datasets import Dataset
from refbench.web.index import IndexFolder, facet_names, pack, unpack
from refbench.web.runs import System

BATCH = 5000


def ensure_system(folder: IndexFolder, ds: Dataset, system: System) -> dict[str, int]:
    """Load the system's predictions into the dataset's index if they are not there yet;
    returns how many instances they answer and how many of their ids the dataset lacks."""
    sig = system.stamp
    db = folder.connect(ds)
    try:
        row = db.execute("SELECT signature, n_matched, n_unmatched FROM systems WHERE sys = ?",
                         (system.sid,)).fetchone()
        if row is not None and row[0] == sig:
            return {"matched": int(row[1]), "unmatched": int(row[2])}
        with folder.lock(ds):
            row = db.execute("SELECT signature, n_matched, n_unmatched FROM systems "
                             "WHERE sys = ?", (system.sid,)).fetchone()
            if row is not None and row[0] == sig:
                return {"matched": int(row[1]), "unmatched": int(row[2])}
            db.execute("DELETE FROM preds WHERE sys = ?", (system.sid,))
            db.execute("DELETE FROM outputs WHERE sys = ?", (system.sid,))
            db.execute("DELETE FROM slice_counts WHERE sys = ?", (system.sid,))
            if ds.task.documents is not None:
                matched, unmatched = _load_documents(db, system, ds.task.documents)
            else:
                matched, unmatched = _load_choice(db, system, ds.view)
                _count_slices(db, system.sid, facet_names(ds.view))
            db.execute("INSERT OR REPLACE INTO systems VALUES (?, ?, ?, ?)",
                       (system.sid, sig, matched, unmatched))
            db.commit()
            return {"matched": matched, "unmatched": unmatched}
    finally:
        db.close()


def _load_choice(db: sqlite3.Connection, system: System, view: WebView) -> tuple[int, int]:
    db.execute("CREATE TEMP TABLE IF NOT EXISTS incoming (key TEXT, answer INTEGER, "
               "output BLOB)")
    db.execute("DELETE FROM incoming")
    for run in system.runs:
        batch: list[tuple[str, int | None, bytes]] = []
        for _, obj in read_jsonl(run.predictions):
            answer = obj.get("answer")
            out = _shown_output(obj)
            batch.append((view.match_key(str(obj.get("id", ""))),
                          answer if isinstance(answer, int) else None, pack(out)))
            if len(batch) >= BATCH:
                db.executemany("INSERT INTO incoming VALUES (?, ?, ?)", batch)
                batch = []
        db.executemany("INSERT INTO incoming VALUES (?, ?, ?)", batch)
    db.execute(
        "INSERT OR REPLACE INTO preds (sys, n, answer, correct) "
        "SELECT ?, i.n, t.answer, CASE WHEN i.gold IS NULL THEN NULL "
        "WHEN t.answer IS NULL THEN 0 ELSE t.answer = i.gold END "
        "FROM incoming t JOIN items i ON i.key = t.key", (system.sid,))
    db.execute("INSERT OR REPLACE INTO outputs (sys, n, output) SELECT ?, i.n, t.output "
               "FROM incoming t JOIN items i ON i.key = t.key", (system.sid,))
    matched = db.execute("SELECT count(*) FROM preds WHERE sys = ?",
                         (system.sid,)).fetchone()[0]
    total = db.execute("SELECT count(*) FROM incoming").fetchone()[0]
    db.execute("DELETE FROM incoming")
    return int(matched), int(total) - int(matched)


def _shown_output(obj: dict[str, Any]) -> dict[str, Any]:
    """What the instance page shows of a prediction, each field only in the shape the page
    draws (a list of numbers, a list of steps, an object): a file whose lines are JSON objects
    with other shapes (``"scores": "abc"``, ``"extra": [1]``) shows less, never a 500."""
    out: dict[str, Any] = {}
    scores = obj.get("scores")
    if isinstance(scores, list) and all(
            v is None or (isinstance(v, int | float) and not isinstance(v, bool))
            for v in scores):
        out["scores"] = scores
    steps = obj.get("explanation")
    if isinstance(steps, str):
        out["explanation"] = [steps]
    elif isinstance(steps, list):
        out["explanation"] = [str(step) for step in steps]
    if isinstance(obj.get("extra"), dict):
        out["extra"] = obj["extra"]
    return out


def _count_slices(db: sqlite3.Connection, sid: str, names: list[str]) -> None:
    """A system's right answers per slice value, counted once when its predictions are
    loaded, so comparing systems on a large suite reads a few rows instead of joining them."""
    for name in ("all", *names):
        col = "'all'" if name == "all" else f"i.f_{name}"
        db.execute(f"INSERT INTO slice_counts SELECT ?, ?, {col}, count(*), sum(p.correct) "
                   f"FROM preds p JOIN items i ON i.n = p.n WHERE p.sys = ? AND p.correct "
                   f"IS NOT NULL AND {col} IS NOT NULL GROUP BY {col}", (sid, name, sid))


def _load_documents(db: sqlite3.Connection, system: System, documents: Documents
                    ) -> tuple[int, int]:
    """A documents task's predictions (TNE) against the dataset's documents, read by the task
    (:meth:`refbench.tasks.capabilities.Documents.outputs`); a file for other documents
    matches nothing."""
    payloads: dict[str, dict[str, Any]] = {}
    numbers: dict[str, int] = {}
    for n, iid, blob in db.execute("SELECT i.n, iid, payload FROM items i JOIN payloads p "
                                   "ON p.n = i.n"):
        payloads[iid] = unpack(blob)
        numbers[iid] = n
    matched = unmatched = 0
    for run in system.runs:
        try:
            outputs = documents.outputs(payloads, run.predictions)
        except RefbenchError:
            unmatched += 1  # predictions for other documents (or malformed): not this dataset
            continue
        rows = [(system.sid, numbers[doc_id], pack(out)) for doc_id, out in outputs.items()]
        db.executemany("INSERT OR REPLACE INTO preds VALUES (?, ?, NULL, NULL)",
                       [r[:2] for r in rows])
        db.executemany("INSERT OR REPLACE INTO outputs VALUES (?, ?, ?)", rows)
        matched += len(rows)
    return matched, unmatched


def outputs_for(db: sqlite3.Connection, n: int, sids: list[str]) -> dict[str, dict[str, Any]]:
    """Each system's answer on instance ``n`` (absent: the system did not answer it)."""
    out = {}
    for sid in sids:
        row = db.execute("SELECT answer, correct, output FROM preds p LEFT JOIN outputs o "
                         "USING (sys, n) WHERE sys = ? AND n = ?", (sid, n)).fetchone()
        if row is not None:
            out[sid] = {"answer": row[0], "correct": row[1],
                        **(unpack(row[2]) if row[2] is not None else {})}
    return out


def correctness_columns(db: sqlite3.Connection, a: str, b: str) -> tuple[list[int], list[int]]:
    """Paired correctness of two systems on the instances both answered that have gold."""
    rows = db.execute("SELECT x.correct, y.correct FROM preds x JOIN preds y ON x.n = y.n "
                      "WHERE x.sys = ? AND y.sys = ? AND x.correct IS NOT NULL AND "
                      "y.correct IS NOT NULL ORDER BY x.n", (a, b)).fetchall()
    return [int(r[0]) for r in rows], [int(r[1]) for r in rows]
