"""Pages' computed parts kept per dataset while its runs are unchanged.

The leaderboard's table of a dataset is computed once and reused until a run on that dataset
is added, removed or its predictions file changes (the systems' run ids and files' sizes and
times are the key), so the leaderboard of a store with hundreds of runs is mostly rendering.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from refbench.web.datasets import Dataset
from refbench.web.runs import System

_TABLES: dict[tuple[str, str], tuple[tuple[Any, ...], Any]] = {}
_LOCK = threading.Lock()


def runs_key(systems: list[System]) -> tuple[Any, ...]:
    """What the dataset's systems are made of: each run's id and its predictions file."""
    key: list[Any] = []
    for s in systems:
        for run in s.runs:
            try:
                st = run.predictions.stat()
                stamp: Any = (st.st_size, st.st_mtime_ns)
            except OSError:
                stamp = None
            key.append((s.sid, run.rid, str(run.predictions), stamp))
    return tuple(key)


def table(kind: str, ds: Dataset, systems: list[System], compute: Callable[[], Any]) -> Any:
    """``compute()``'s result for ``ds``, computed again only when its runs changed."""
    key = runs_key(systems)
    with _LOCK:
        hit = _TABLES.get((kind, ds.key))
    if hit is not None and hit[0] == key:
        return hit[1]
    value = compute()
    with _LOCK:
        _TABLES[(kind, ds.key)] = (key, value)
    return value
