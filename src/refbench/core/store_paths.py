"""Where the results store lives on disk (no SQLite here).

Below ``models/`` and ``runs/`` so that a model keeping a cache beside the store (the chat
model's ``chat-cache.sqlite``) finds the place without importing the runs layer.
"""

from __future__ import annotations

import os
from pathlib import Path

STORE_DIR = ".refbench"
STORE_NAME = "results.sqlite"


def legacy_store_path() -> Path:
    """Where refbench 0.1.0 kept one store per user (shared by every checkout)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "refbench" / STORE_NAME


def find_store(start: str | Path | None = None) -> Path | None:
    """The nearest existing ``.refbench/results.sqlite`` in ``start`` or one of its parents."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / STORE_DIR / STORE_NAME
        if candidate.is_file():
            return candidate
    return None


def default_store_path() -> Path:
    """``$REFBENCH_STORE``, else the nearest project store, else ``./.refbench/results.sqlite``."""
    if os.environ.get("REFBENCH_STORE"):
        return Path(os.environ["REFBENCH_STORE"])
    return find_store() or Path(STORE_DIR) / STORE_NAME
