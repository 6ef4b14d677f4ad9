"""Every column of a results-store row typed as it is read: a row edited by hand or by another
tool (metrics JSON ``null``, a count that is text, a model that is a number) is one error
naming the store, the run and the column, not a ``TypeError`` in whatever reads it next."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Required, TypedDict, cast

from refbench.core.inputs import json_type
from refbench.runs.store_schema import StoreError


class CoverageNote(TypedDict):
    """A partial result's coverage as ``metrics.json`` and ``results ls --json`` write it:
    ``n`` of ``of`` instances, ``by`` the reasons joined (``--limit, shard``)."""

    n: int
    of: int | None
    by: str


class RunRow(TypedDict, total=False):
    """One run of the results store, every column typed (:func:`typed_row`): ``runs()`` gives
    the listing's columns, ``get()`` every column and ``metrics`` (the run's ``metrics.json``,
    a serialised :class:`~refbench.core.result.Result`: ``Result.from_json`` reads it)."""

    run_id: Required[int]
    created: str
    model: str
    system: str | None
    model_fingerprint: str
    task: str
    data: str
    data_sha256: str | None
    split: str | None
    n: int
    accuracy: float | None
    metrics: dict[str, Any]
    out_dir: str | None
    tags: list[str]
    #: ``results ls`` adds a partial run's coverage.
    data_coverage: CoverageNote

_TEXT = ("created", "model", "model_fingerprint", "task", "data")
_OPTIONAL_TEXT = ("system", "data_sha256", "split", "out_dir")


def _damaged(path: Path, run_id: Any, column: str, expected: str, value: Any) -> StoreError:
    shown = json_type(value) if not isinstance(value, bytes) else "bytes"
    return StoreError(f"run {run_id}: column {column!r}: expected {expected}, found {shown}; "
                      "the row was changed outside refbench (refbench results rm it, or "
                      "record the run again)", path=path, kind="damaged")


def typed_row(row: dict[str, object], path: Path) -> RunRow:
    """``row`` (columns by name, as SQLite gave them) checked, with ``metrics`` parsed when
    it is there; a column of the wrong type is a :class:`StoreError`."""
    rid = row.get("run_id")
    if not isinstance(rid, int) or isinstance(rid, bool):
        raise _damaged(path, rid, "run_id", "an integer", rid)
    for col in _TEXT:
        if col in row and not isinstance(row[col], str):
            raise _damaged(path, rid, col, "text", row[col])
    for col in _OPTIONAL_TEXT:
        if col in row and row[col] is not None and not isinstance(row[col], str):
            raise _damaged(path, rid, col, "text or NULL", row[col])
    n = row.get("n", 0)
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise _damaged(path, rid, "n", "a count (an integer 0 or more)", n)
    acc = row.get("accuracy")
    if acc is not None and (not isinstance(acc, int | float) or isinstance(acc, bool)):
        raise _damaged(path, rid, "accuracy", "a number or NULL", acc)
    if "metrics" in row:
        text = row["metrics"]
        if not isinstance(text, str | bytes):
            raise _damaged(path, rid, "metrics", "a JSON object", text)
        try:
            metrics = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise StoreError(f"run {rid}: its metrics are not valid JSON", path=path,
                             kind="damaged") from None
        if not isinstance(metrics, dict):
            raise _damaged(path, rid, "metrics", "a JSON object", metrics)
        row["metrics"] = metrics
    return cast(RunRow, row)
