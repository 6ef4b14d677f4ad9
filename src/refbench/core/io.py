"""Gzip-transparent reading, atomic writing, JSON Lines.

Every reader in refbench opens files through :func:`open_text`, so ``.gz`` and ``.bz2`` inputs work
everywhere. Every writer goes through :func:`atomic_write` or :func:`atomic_dir`: a crash or a bad
input never leaves a half-written file or folder behind.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from refbench.core.errors import OutputError, RefbenchError

# Temporary files and folders are created private (0600/0700); what is committed gets the
# permissions an ordinary open() or mkdir() would give under the user's umask.
_UMASK = os.umask(0)
os.umask(_UMASK)


def open_text(path: str | Path, mode: str = "r") -> IO[str]:
    """Open a text file, decompressing ``.gz``/``.bz2`` by extension (UTF-8)."""
    p = Path(path)
    if mode not in ("r", "w"):
        raise ValueError(f"mode must be 'r' or 'w', not {mode!r}")
    if p.suffix == ".gz" and mode == "r":
        # A large read buffer keeps line iteration over gzip streams fast.
        raw = io.BufferedReader(gzip.GzipFile(p, "rb"), buffer_size=1 << 20)
        return io.TextIOWrapper(raw, encoding="utf-8", newline="")
    if p.suffix == ".gz":
        return gzip.open(p, mode + "t", encoding="utf-8", newline="")  # type: ignore[return-value]
    if p.suffix == ".bz2":
        return bz2.open(p, mode + "t", encoding="utf-8", newline="")  # type: ignore[return-value]
    return open(p, mode, encoding="utf-8", newline="")


def read_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, line_without_newline)``; undecodable bytes are an input error."""
    try:
        with open_text(path) as fh:
            for number, line in enumerate(fh, start=1):
                yield number, line.rstrip("\r\n")
    except UnicodeDecodeError as exc:
        raise RefbenchError(f"not UTF-8 text ({exc.reason})", path=path) from None
    except FileNotFoundError:
        raise RefbenchError("file not found", path=path) from None


def read_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSON Lines file."""
    for number, line in read_lines(path):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RefbenchError(f"invalid JSON ({exc.msg})", path=path, line=number) from None
        if not isinstance(obj, dict):
            raise RefbenchError("expected a JSON object", path=path, line=number)
        yield number, obj


def load_json(path: str | Path) -> Any:
    """A whole JSON document (gz-transparent); invalid JSON names the file and line."""
    try:
        with open_text(path) as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        raise RefbenchError(f"invalid JSON ({exc.msg})", path=path, line=exc.lineno) from None
    except UnicodeDecodeError as exc:
        raise RefbenchError(f"not UTF-8 text ({exc.reason})", path=path) from None
    except FileNotFoundError:
        raise RefbenchError("file not found", path=path) from None


def load_json_list(path: str | Path, what: str = "items") -> list[Any]:
    data = load_json(path)
    if not isinstance(data, list):
        raise RefbenchError(f"expected a JSON list of {what}", path=path)
    return data


def dumps_jsonl(obj: Any) -> str:
    """One canonical JSON line (stable key order given by the caller, no NaN, UTF-8)."""
    return json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))


@contextlib.contextmanager
def atomic_write(path: str | Path) -> Iterator[IO[str]]:
    """Write a text file via a temporary sibling, renamed into place only on success."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        with _open_for_write(Path(tmp), compress=target.suffix == ".gz") as fh:
            yield fh
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _open_for_write(path: Path, *, compress: bool) -> IO[str]:
    if not compress:
        return open(path, "w", encoding="utf-8", newline="")
    # mtime=0 and no file name in the header: identical input gives identical bytes.
    raw = gzip.GzipFile(filename="", mode="wb", fileobj=open(path, "wb"), mtime=0)  # noqa: SIM115
    return io.TextIOWrapper(raw, encoding="utf-8", newline="")


def write_text_atomic(path: str | Path, text: str) -> None:
    with atomic_write(path) as fh:
        fh.write(text)


def torch_save_atomic(obj: Any, path: str | Path) -> None:
    """``torch.save`` to a temporary file beside ``path``, then rename: a crash mid-save never
    leaves a truncated checkpoint or model."""
    import torch

    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    torch.save(obj, tmp)
    tmp.replace(p)


def prepare_output_dir(out: Path, *, overwrite: bool) -> Path:
    """Check that ``out`` may be (re)written and return a fresh temporary sibling folder.

    The caller fills the temporary folder and then calls :func:`commit_output_dir`.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OutputError("exists and is not a folder", path=out)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise OutputError("folder is not empty (use --overwrite to replace it)", path=out)
    parent = out.parent if str(out.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=parent))
    except OSError as exc:
        raise OutputError(f"cannot write here ({exc.strerror})", path=out) from None
    return tmp


def commit_output_dir(tmp: Path, out: Path) -> None:
    """Replace ``out`` by the completed temporary folder ``tmp``."""
    out = Path(out)
    os.chmod(tmp, 0o777 & ~_UMASK)
    if out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.replace(out, old)
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, out)


def discard_output_dir(tmp: Path) -> None:
    shutil.rmtree(tmp, ignore_errors=True)


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sha256_texts(items: Iterable[str]) -> str:
    h = hashlib.sha256()
    for item in items:
        h.update(item.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


class LineWriter:
    """Buffered text writer used by the generator's hot loop (large buffer, plain files)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(path, "w", encoding="utf-8", newline="", buffering=1 << 20)  # noqa: SIM115

    def write(self, text: str) -> None:
        self._fh.write(text)

    def close(self) -> None:
        self._fh.close()
