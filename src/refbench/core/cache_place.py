"""Where refbench's cache folder is, with nothing but ``os`` imported: the command line asks
it before anything else is loaded (:mod:`refbench.cli.memo`); :func:`refbench.core.cache.cache_dir`
is the same place as a ``Path``."""

from __future__ import annotations

import os


def cache_folder() -> str:
    """``$REFBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/refbench``, else ``~/.cache/refbench``."""
    explicit = os.environ.get("REFBENCH_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "refbench")
