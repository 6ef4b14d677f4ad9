"""Where the results store lives on disk (no SQLite here).

Below ``models/`` and ``runs/`` so that a model keeping a cache beside the store (the chat
model's ``chat-cache.sqlite``) finds the place without importing the runs layer.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

STORE_DIR = ".refbench"
STORE_NAME = "results.sqlite"


def legacy_store_path() -> Path:
    """Where refbench 0.1.0 kept one store per user (shared by every checkout)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "refbench" / STORE_NAME


def shared_folder(folder: Path) -> str | None:
    """Why a store in ``folder`` could be someone else's (None when it is safe to use): a
    folder others may write into (world-writable with the sticky bit, as the system's
    temporary folder), or one owned by another user (git's ``safe.directory`` rule)."""
    try:
        st = folder.stat()
    except OSError:
        return "unreadable"
    if st.st_mode & stat.S_IWOTH:
        return "a folder everyone may write (such as the system's temporary folder)"
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    if uid is not None and st.st_uid != uid:
        return "a folder owned by another user"
    return None


def find_store(start: str | Path | None = None) -> Path | None:
    """The nearest existing ``.refbench/results.sqlite`` in ``start`` or one of its parents, as
    git finds a repository, but never in or above a folder that others can write or that
    another user owns (:func:`shared_folder`): a store found there could be anyone's."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if shared_folder(folder) is not None:
            return None
        candidate = folder / STORE_DIR / STORE_NAME
        if candidate.is_file() and shared_folder(candidate.parent) is None:
            return candidate
    return None


def store_origin(path: Path) -> str:
    """How the store at ``path`` was chosen, for the line each command prints."""
    if os.environ.get("REFBENCH_STORE") and Path(os.environ["REFBENCH_STORE"]) == path:
        return "from $REFBENCH_STORE"
    return "the nearest project store" if path.is_absolute() else "the working folder's"


def default_store_path() -> Path:
    """``$REFBENCH_STORE``, else the nearest project store (:func:`find_store`), else
    ``./.refbench/results.sqlite``."""
    if os.environ.get("REFBENCH_STORE"):
        return Path(os.environ["REFBENCH_STORE"])
    return find_store() or Path(STORE_DIR) / STORE_NAME
