"""Writing a new study file: items, annotators with unguessable tokens, and each annotator's
seeded order (and option order), all decided once at creation so that serving is only lookups.

Assignment: with ``overlap`` R < number of annotators A, item k goes to annotators
(k*R + j) mod A for j < R, which spreads items evenly; by default every annotator gets every
item (what Fleiss' kappa needs). The file is built beside its destination and renamed into
place, so a failed creation leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import secrets
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refbench.core.errors import OutputError, UsageError
from refbench.core.version import __version__
from refbench.studyfile.db import connect, now, write_schema

TOKEN_BYTES = 24  # 192 bits from the OS's CSPRNG


@dataclass
class NewItem:
    id: str
    payload: dict[str, Any]
    gold: str | None = None
    condition: str = ""
    gold_check: bool = False


@dataclass
class CreatedStudy:
    path: Path
    kind: str
    n_items: int
    annotators: list[tuple[str, str]]  # (name, token)
    admin_token: str
    summary: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # printed on stderr by the CLI


def annotator_names(spec: str) -> list[str]:
    """``--annotators 6`` (ann1..ann6) or ``--annotators alice,bob``."""
    spec = spec.strip()
    if spec.isdigit():
        n = int(spec)
        if not 1 <= n <= 1000:
            raise UsageError("--annotators must be between 1 and 1000")
        return [f"ann{i}" for i in range(1, n + 1)]
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if not names or len(set(names)) != len(names):
        raise UsageError(f"--annotators expects a number or distinct comma-separated names, got "
                         f"{spec!r}")
    for name in names:
        if not all(ch.isalnum() or ch in "-_." for ch in name):
            raise UsageError(f"annotator name {name!r}: use letters, digits, '-', '_' or '.'")
    return names


def assign(n_items: int, n_annotators: int, overlap: int | None) -> list[list[int]]:
    """Item indices per annotator."""
    r = n_annotators if overlap is None else overlap
    if not 1 <= r <= n_annotators:
        raise UsageError(f"--overlap must be between 1 and the number of annotators "
                         f"({n_annotators}), got {r}")
    out: list[list[int]] = [[] for _ in range(n_annotators)]
    for k in range(n_items):
        for j in range(r):
            out[(k * r + j) % n_annotators].append(k)
    return out


def check_out(out: Path, *, overwrite: bool) -> None:
    """Refuse early (before reading any data) to replace a study unless asked to."""
    if out.exists() and not overwrite:
        raise OutputError("exists (a study holds answers; use --overwrite to replace it)",
                          path=out)
    if out.exists() and not out.is_file():
        raise OutputError("exists and is not a file", path=out)


def write_study(out: Path, *, kind: str, items: Sequence[NewItem], annotators: Sequence[str],
                seed: int, meta: dict[str, Any], overlap: int | None = None,
                shuffle: bool = True, overwrite: bool = False,
                options: Callable[[NewItem, random.Random], Any] | None = None) -> CreatedStudy:
    """Write the study file atomically and return the annotators' tokens."""
    out = Path(out)
    check_out(out, overwrite=overwrite)
    if not items:
        raise UsageError("no items to put in the study")
    ids = [it.id for it in items]
    if len(set(ids)) != len(ids):
        raise UsageError("two study items share an id")
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    os.close(fd)
    os.unlink(tmp)
    tokens = [(name, secrets.token_urlsafe(TOKEN_BYTES)) for name in annotators]
    admin = secrets.token_urlsafe(TOKEN_BYTES)
    full_meta = {"kind": kind, "seed": seed, "created": now(),
                 "refbench_version": __version__, "overlap": overlap, **meta}
    try:
        conn = connect(tmp)
        os.chmod(tmp, 0o600)  # it holds the tokens: readable by its owner only
        write_schema(conn, full_meta)  # executescript commits on its own
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO items (id, position, payload, gold, condition, gold_check) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(it.id, k, json.dumps(it.payload, ensure_ascii=False, sort_keys=True), it.gold,
              it.condition, int(it.gold_check)) for k, it in enumerate(items)])
        conn.executemany("INSERT INTO annotators (id, name, token, role) VALUES (?, ?, ?, ?)",
                         [*((a, n, t, "annotator") for a, (n, t) in enumerate(tokens, 1)),
                          (len(tokens) + 1, "admin", admin, "admin")])
        for a, (name, _), chosen in zip(range(1, len(tokens) + 1), tokens,
                                        assign(len(items), len(tokens), overlap), strict=True):
            order = list(chosen)
            if shuffle:
                random.Random(f"{seed}:order:{name}").shuffle(order)
            rows = []
            for pos, k in enumerate(order):
                opts = options(items[k], random.Random(f"{seed}:options:{name}:{items[k].id}")) \
                    if options else None
                rows.append((a, pos, items[k].id, json.dumps(opts)))
            conn.executemany("INSERT INTO assignments (annotator_id, position, item_id, options)"
                             " VALUES (?, ?, ?, ?)", rows)
        conn.execute("COMMIT")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.close()
        for suffix in ("-wal", "-shm"):  # an old study's log must never meet the new file
            with contextlib.suppress(FileNotFoundError):
                os.unlink(str(out) + suffix)
        os.replace(tmp, out)
    except BaseException:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp + suffix)
        raise
    return CreatedStudy(out, kind, len(items), tokens, admin)
