"""Where a result came from: refbench version, git hash, input hashes, command and time."""

from __future__ import annotations

import datetime as _dt
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import refbench
from refbench.core.io import sha256_file


def git_hash() -> str | None:
    """The commit of the refbench checkout this code runs from (None outside a checkout)."""
    src = Path(refbench.__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


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
        "refbench_version": refbench.__version__,
        "git_hash": git_hash(),
        "inputs": files,
        "command": " ".join(["refbench", *sys.argv[1:]]),
        "time": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
    }
