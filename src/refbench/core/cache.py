"""refbench's cache folder, and parsed files kept there keyed by their content.

The folder is ``$REFBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/refbench``, else
``~/.cache/refbench``. Everything in it can be deleted at any time: it is rebuilt on use.

A parsed file is stored as JSON under the sha256 of the file's bytes, the kind of parse, and a
stamp of refbench's version and of the code that parses it (each module's size and time), so
an edited reader never returns an old parse. Scoring many prediction files against one gold
file then reads the gold once. Nothing is ever executed from the cache; an entry that cannot
be read is parsed again, and a cache folder that cannot be written is no error.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

from refbench.core.cache_place import cache_folder

CACHE_FORMAT = 1


def cache_dir() -> Path:
    """``$REFBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/refbench``, else ``~/.cache/refbench``."""
    return Path(cache_folder())


def code_stamp(*modules: str) -> str:
    """A short stamp of refbench's version and of the named modules' source files (size and
    modification time): it changes whenever one of them is edited."""
    from refbench.core.version import __version__

    h = hashlib.sha256(f"{CACHE_FORMAT}|{__version__}".encode())
    for name in modules:
        module = sys.modules.get(name)
        source = getattr(module, "__file__", None)
        if source is None:
            h.update(f"|{name}:?".encode())
            continue
        st = os.stat(source)
        h.update(f"|{name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


_SHAS: dict[Path, dict[str, str]] = {}  # per cache folder
_SHAS_LOCK = threading.Lock()


def remembered_sha256(path: Path) -> str:
    """A file's sha256, remembered in the cache folder by its place, size and modification
    time (``sha256.json``), so the same unchanged files are not read again at each start."""
    from refbench.core.io import sha256_file

    st = path.stat()
    key = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    memo = cache_dir() / "sha256.json"
    with _SHAS_LOCK:
        known = _SHAS.get(memo)
        if known is None:
            try:
                loaded = json.loads(memo.read_text(encoding="utf-8"))
                known = {str(k): str(v) for k, v in loaded.items()} \
                    if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                known = {}
            _SHAS[memo] = known
        if key in known:
            return known[key]
    digest = sha256_file(path)
    with _SHAS_LOCK:
        known[key] = digest
        _write_json(memo, known)
    return digest


def _write_json(target: Path, value: Any) -> None:
    """Write ``value`` whole or not at all; a folder that cannot be written is no error."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(value, fh, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, target)
    except OSError:
        return


def _entry(kind: str, path: Path, stamp: str) -> Path:
    return cache_dir() / "parsed" / kind / f"{remembered_sha256(path)}-{stamp}.json"


def load_parsed(kind: str, path: Path, stamp: str) -> Any | None:
    """The parse of ``path`` kept under ``kind`` and ``stamp``; None when there is none."""
    try:
        entry = _entry(kind, path, stamp)
        with open(entry, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def save_parsed(kind: str, path: Path, stamp: str, value: Any) -> None:
    """Keep the parse of ``path`` (JSON-able); written whole or not at all."""
    try:
        entry = _entry(kind, path, stamp)
    except OSError:
        return
    _write_json(entry, value)
