"""Where a result came from: refbench version, git hash, input hashes, command and time."""

from __future__ import annotations

import datetime as _dt
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from refbench.core.io import sha256_file
from refbench.core.version import __version__


def _git(*args: str) -> str | None:
    """Output of a git command in the checkout refbench runs from; None when refbench is not
    running from its own checkout (an installed copy inside some other repository must not
    report that repository's commit)."""
    src = Path(__file__).resolve().parents[1]
    try:
        top = subprocess.run(["git", "-C", str(src), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, timeout=5, check=False)
        if top.returncode != 0 or not top.stdout.strip():
            return None
        if Path(top.stdout.strip()).resolve() / "src" / "refbench" != src:
            return None
        out = subprocess.run(["git", "-C", str(src), *args], capture_output=True, text=True,
                             timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def git_hash() -> str | None:
    """The commit of the refbench checkout this code runs from (None outside a checkout)."""
    out = _git("rev-parse", "HEAD")
    return out.strip() or None if out is not None else None


def git_dirty() -> bool | None:
    """Whether refbench's own source differs from that commit (None outside a checkout)."""
    out = _git("status", "--porcelain", "--", ":(top)src/refbench")
    return None if out is None else bool(out.strip())


def provenance(inputs: dict[str, list[str]]) -> dict[str, Any]:
    files: dict[str, list[dict[str, str]]] = {}
    for role, paths in inputs.items():
        files[role] = []
        for p in paths:
            path = Path(p)
            entry = {"path": str(p)}
            if path.is_file():
                entry["sha256"] = sha256_file(path)
            files[role].append(entry)
    return {
        "refbench_version": __version__,
        "git_hash": git_hash(),
        "inputs": files,
        "command": " ".join(["refbench", *sys.argv[1:]]),
        "time": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
    }


def refbench_bibtex(version: str) -> str:
    """How to cite refbench itself (every datasheet and exported card cites it beside the
    benchmark's paper)."""
    return ("@software{refbench,\n"
            "    title = {refbench: a toolkit for knowledge-intensive reference resolution},\n"
            "    author = {{refbench contributors}},\n"
            f"    version = {{{version}}},\n"
            "    note = {KITMUS suite generator, readers, models and scorers},\n"
            "}")
