"""Prediction files committed under ``benchmarks/results/`` so that a quoted model figure can be
checked with ``refbench evaluate`` from the repository alone (the weights stay out of git).

``benchmarks/results/manifest.json`` lists, per recorded model, the task, the gold file (relative
to ``../shared/data``), the gzipped prediction files (relative to ``benchmarks/results``), the
``refbench evaluate`` options, the figures the benchmark printed, and the command that made them.
``tests/realdata/test_recorded_results.py`` re-scores every entry on the real data.
Gzip files are written with a zero timestamp and no file name, so a re-run writes the same bytes.
"""

from __future__ import annotations

import gzip
import json
import os
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
MANIFEST = RESULTS / "manifest.json"


def _replace(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)  # committed files: mkstemp's 0600 would travel into git
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def gzip_bytes(text: bytes) -> bytes:
    """``text`` gzipped deterministically (mtime 0, no name in the header)."""
    import io

    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(text)
    return buf.getvalue()


def save_gz(src: Path | bytes, name: str, file: str) -> str:
    """Gzip ``src`` (a file or its bytes) to ``results/NAME/FILE``; returns that path relative
    to ``results``."""
    data = src if isinstance(src, bytes) else Path(src).read_bytes()
    rel = f"{name}/{file}"
    _replace(RESULTS / rel, gzip_bytes(data))
    return rel


def command_line(argv: list[str]) -> str:
    """The command that makes the recorded files: this script with its options, less
    ``--resume`` and ``--eval-only`` (how the run was continued, not what it is), an absolute
    ``--out`` shortened to ``models/NAME``."""
    args: list[str] = []
    it = iter(argv[1:])
    for a in it:
        if a in ("--resume", "--eval-only"):
            continue
        args.append(a)
        if a == "--out":
            value = next(it, "")
            args.append(f"models/{Path(value).name}" if Path(value).is_absolute() else value)
    return shlex.join(["python", f"benchmarks/{Path(argv[0]).name}", *args])


def record(name: str, entry: dict[str, Any]) -> None:
    """Add or replace the manifest entry ``name`` (with the command line that made it)."""
    manifest = json.loads(MANIFEST.read_text()) if MANIFEST.is_file() else {}
    manifest[name] = {**entry, "made_by": command_line(sys.argv)}
    _replace(MANIFEST, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
