"""Prediction files committed under ``benchmarks/results/`` so that a quoted model figure can be
checked with ``refbench evaluate`` from the repository alone (the weights stay out of git).

``benchmarks/results/manifest.json`` lists, per recorded model, the task, the gold file (relative
to ``../shared/data``), the gzipped prediction files (relative to ``benchmarks/results``), the
``refbench evaluate`` options, the figures the benchmark printed, and the command that made them.
``tests/cli/test_recorded_results.py`` re-scores every entry on the real data.
Gzip files are written by refbench's atomic writer, with a zero timestamp and no file name,
so a re-run writes the same bytes.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from refbench.core.outputs import write_text_atomic

RESULTS = Path(__file__).resolve().parent / "results"
MANIFEST = RESULTS / "manifest.json"


def save_gz(src: Path | str, name: str, file: str) -> str:
    """Gzip ``src`` (a file, or the text itself) to ``results/NAME/FILE`` through refbench's
    atomic writer (a ``.gz`` target is compressed with no timestamp or name in its header);
    returns that path relative to ``results``."""
    text = src if isinstance(src, str) else Path(src).read_text(encoding="utf-8")
    rel = f"{name}/{file}"
    write_text_atomic(RESULTS / rel, text)
    return rel


def command_line(argv: list[str]) -> str:
    """The command that makes the recorded files: this script with its options, less
    ``--resume`` and ``--eval-only`` (how the run was continued, not what it is), an absolute
    ``--out`` or ``--suite`` (a generated KITMUS suite) shortened to ``models/NAME``."""
    args: list[str] = []
    it = iter(argv[1:])
    for a in it:
        if a in ("--resume", "--eval-only"):
            continue
        args.append(a)
        if a in ("--out", "--suite"):
            value = next(it, "")
            args.append(f"models/{Path(value).name}" if Path(value).is_absolute() else value)
    return shlex.join(["python", f"benchmarks/{Path(argv[0]).name}", *args])


def record(name: str, entry: dict[str, Any]) -> None:
    """Add or replace the manifest entry ``name`` (with the command line that made it)."""
    import fcntl

    with (RESULTS / ".manifest.lock").open("w") as lock:  # runs may finish at once
        fcntl.flock(lock, fcntl.LOCK_EX)
        manifest = json.loads(MANIFEST.read_text()) if MANIFEST.is_file() else {}
        manifest[name] = {**entry, "made_by": command_line(sys.argv)}
        write_text_atomic(MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def kitmus_test_gold(variant: str, entities: int) -> dict[str, Any]:
    """The manifest fields of a KITMUS test split that the re-scoring test regenerates (the
    default suite's settings, one variant and entity count, test split, JSONL only)."""
    return {"gold": f"kitmus-suite/{variant}/subtask_{entities}_ents/test.jsonl",
            "generated": {"variants": variant, "entities": str(entities), "splits": "test",
                          "formats": "jsonl"}}
