"""Opening input files: every way a file can be unusable becomes one :class:`RefbenchError`.

Every reader in refbench opens files through :func:`open_text` (or the helpers built on it), so
the checks live here once: a missing file, a folder, an unreadable file, bytes that are not
UTF-8, a file named ``.gz``/``.bz2`` that is not compressed that way, a truncated or corrupt
compressed stream. Each is reported with the file's name (and the line reached, where there is
one) instead of a traceback. ``.gz`` and ``.bz2`` are decompressed by name; gzip data under
another name is recognised by its magic bytes (which no UTF-8 text can start with).
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import os
import stat
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any, TypeVar

from refbench.core.errors import RefbenchError
from refbench.core.invalid import InvalidInstances, reject

T = TypeVar("T")
_GZIP_MAGIC = b"\x1f\x8b"
_BZ2_MAGIC = b"BZh"
_BUFFER = 1 << 20


COMPRESSED = (".gz", ".bz2")


def format_name(path: str | Path) -> str:
    """The file name without a compression suffix: what a file's format is read from
    (``test.jsonl.gz`` and ``test.jsonl.bz2`` are both ``test.jsonl``)."""
    name = Path(path).name
    for ext in COMPRESSED:
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def contained_path(root: str | Path, relative: str, *, what: str = "path") -> Path:
    """``root / relative`` once it is known to stay inside ``root``: a path read from a data
    file (``../../etc/passwd``, an absolute path, a symlink out) never reaches elsewhere."""
    base = Path(root).resolve()
    target = (base / relative).resolve()
    if not relative or Path(relative).is_absolute() or not target.is_relative_to(base):
        raise RefbenchError(f"{what} {relative!r} lies outside the resource folder {base}")
    return Path(root) / relative


def check_input_file(path: str | Path, *, what: str = "file") -> Path:
    """``path`` as a Path once it is known to be a readable file (not a folder)."""
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise RefbenchError(f"{what} not found", path=p) from None
    except NotADirectoryError:
        raise RefbenchError(f"{what} not found (a folder in the path is a file)", path=p) from None
    except OSError as exc:
        raise RefbenchError(f"cannot read ({exc.strerror})", path=p) from None
    if stat.S_ISDIR(st.st_mode):
        raise RefbenchError(f"is a folder; expected a {what}", path=p)
    if not os.access(p, os.R_OK):
        raise RefbenchError("cannot read (permission denied)", path=p)
    return p


def input_error(exc: BaseException, path: str | Path, line: int | None = None) -> RefbenchError:
    """The error a person should see for an exception raised while reading ``path``."""
    where = f" near line {line}" if line else ""
    if isinstance(exc, RefbenchError):
        return exc
    if isinstance(exc, UnicodeDecodeError):
        return RefbenchError(f"not UTF-8 text ({exc.reason}{where})", path=path)
    if isinstance(exc, EOFError):
        return RefbenchError(f"compressed data ends early{where}: the file is truncated",
                             path=path)
    if isinstance(exc, gzip.BadGzipFile | zlib.error):
        return RefbenchError(f"corrupt gzip data{where} ({exc})", path=path)
    if isinstance(exc, IsADirectoryError):
        return RefbenchError("is a folder; expected a file", path=path)
    if isinstance(exc, FileNotFoundError):
        return RefbenchError("file not found", path=path)
    if isinstance(exc, PermissionError):
        return RefbenchError("cannot read (permission denied)", path=path)
    if isinstance(exc, OSError):  # bz2 reports corrupt data as a bare OSError
        reason = exc.strerror or str(exc) or type(exc).__name__
        return RefbenchError(f"cannot read{where} ({reason})", path=path)
    if isinstance(exc, MemoryError):
        return RefbenchError(f"too large to read into memory{where}", path=path)
    raise exc


class TextReader:
    """A UTF-8 text stream whose read errors name the file and the line reached.

    Iterating gives lines with their line endings, like a text file; ``line`` is the number of
    the last line returned. Bytes that are not UTF-8 are reported at their own line and column
    (decoding with ``surrogateescape`` and checking each non-ASCII line), not at the start of
    the block the decoder happened to be working on.
    """

    def __init__(self, fh: IO[str], path: Path) -> None:
        self._fh = fh
        self.path = path
        self.line = 0

    def __iter__(self) -> Iterator[str]:
        return (text for _, text in self.numbered())

    def numbered(self) -> Iterator[tuple[int, str]]:
        """``(line number, line)`` pairs (a generator: much cheaper per line than a method)."""
        fh = self._fh
        try:
            for text in fh:
                self.line += 1
                if not text.isascii():
                    self._check(text, self.line)
                yield self.line, text
        except (EOFError, OSError, zlib.error, MemoryError) as exc:
            raise input_error(exc, self.path, self.line + 1) from None

    def _check(self, text: str, first_line: int) -> str:
        if text.isascii():
            return text
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            line = first_line + text.count("\n", 0, exc.start)
            column = exc.start - text.rfind("\n", 0, exc.start)
            byte = ord(text[exc.start]) - 0xDC00
            raise RefbenchError(f"not UTF-8 text (byte 0x{byte:02x} at line {line}, column "
                                f"{column})", path=self.path) from None
        return text

    def read(self, size: int = -1) -> str:
        try:
            text = self._fh.read(size)
        except (EOFError, OSError, zlib.error, MemoryError) as exc:
            raise input_error(exc, self.path) from None
        checked = self._check(text, self.line + 1)
        self.line += text.count("\n")
        return checked

    def readline(self) -> str:
        try:
            text = self._fh.readline()
        except (EOFError, OSError, zlib.error, MemoryError) as exc:
            raise input_error(exc, self.path, self.line + 1) from None
        self.line += bool(text)
        return self._check(text, self.line)

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> TextReader:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def open_binary(path: str | Path, *, what: str = "file") -> IO[bytes]:
    """The file's (decompressed) bytes; the compression must match the name."""
    p = check_input_file(path, what=what)
    try:
        raw = io.BufferedReader(io.FileIO(p, "rb"), buffer_size=_BUFFER)
    except OSError as exc:
        raise input_error(exc, p) from None
    try:
        head = raw.peek(3)[:3]
    except OSError as exc:
        raw.close()
        raise input_error(exc, p) from None
    suffix = p.suffix.lower()
    if suffix == ".gz" or (suffix != ".bz2" and head[:2] == _GZIP_MAGIC):
        if head[:2] != _GZIP_MAGIC:
            raw.close()
            raise RefbenchError("named .gz but not gzip-compressed (rename it, or compress it "
                                "with gzip)", path=p)
        return io.BufferedReader(gzip.GzipFile(fileobj=raw, mode="rb"), buffer_size=_BUFFER)
    if suffix == ".bz2":
        if head != _BZ2_MAGIC:
            raw.close()
            raise RefbenchError("named .bz2 but not bzip2-compressed (rename it, or compress it "
                                "with bzip2)", path=p)
        return io.BufferedReader(bz2.BZ2File(raw, mode="rb"), buffer_size=_BUFFER)
    return raw


def binary_lines(path: str | Path) -> Iterator[bytes]:
    """The (decompressed) lines of a file as bytes, for readers that decode record by record;
    a truncated or corrupt compressed stream is an error naming the file and line."""
    p = Path(path)
    with open_binary(p) as raw:
        number = 0
        while True:
            try:
                line = raw.readline()
            except (EOFError, OSError, zlib.error, MemoryError) as exc:
                raise input_error(exc, p, number + 1) from None
            if not line:
                return
            number += 1
            yield line


def open_text(path: str | Path, mode: str = "r") -> TextReader:
    """Open a UTF-8 text file for reading, decompressing ``.gz``/``.bz2``.

    Writing goes through :mod:`refbench.core.outputs` (atomic writers); ``mode`` exists so an
    accidental write-open fails loudly.
    """
    if mode != "r":
        raise ValueError(f"open_text reads only; use refbench.core.io.atomic_write (mode {mode!r})")
    p = Path(path)
    return TextReader(io.TextIOWrapper(open_binary(p), encoding="utf-8", newline="",
                                       errors="surrogateescape"), p)


def read_text(path: str | Path, *, what: str = "file") -> str:
    """A whole (small) text file, with the same checks as :func:`open_text`."""
    check_input_file(path, what=what)
    with open_text(path) as fh:
        return fh.read()


def read_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, line_without_newline)``."""
    with open_text(path) as fh:
        for number, line in fh.numbered():
            yield number, line.rstrip("\r\n")


def parse_json_line(line: str, *, path: str | Path, number: int) -> dict[str, Any]:
    """One JSON Lines record, which must be an object."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RefbenchError(f"invalid JSON ({exc.msg}, column {exc.colno})", path=path,
                            line=number) from None
    except RecursionError:
        raise RefbenchError("invalid JSON (nested too deeply)", path=path, line=number) from None
    if not isinstance(obj, dict):
        raise RefbenchError(f"expected a JSON object, found {json_type(obj)}", path=path,
                            line=number)
    return obj


def read_jsonl(path: str | Path, *, on_invalid: InvalidInstances | None = None
               ) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSON Lines file.

    With ``on_invalid`` (``--skip-invalid``) a line that is not a JSON object is skipped and
    recorded; without it, it is an error.
    """
    for number, line in read_lines(path):
        if not line.strip():
            continue
        try:
            obj = parse_json_line(line, path=path, number=number)
        except RefbenchError as exc:
            reject(on_invalid, exc, item=f"line {number}")
            continue
        yield number, obj


def parse_jsonl(path: str | Path, parse: Callable[[dict[str, Any], int], T], *,
                on_invalid: InvalidInstances | None = None, id_key: str = "id") -> Iterator[T]:
    """Each record of a JSON Lines file through ``parse(record, line)``; a malformed record
    stops the reading, or with ``on_invalid`` (``--skip-invalid``) is recorded under its id
    (``id_key``) and skipped."""
    for line, obj in read_jsonl(path, on_invalid=on_invalid):
        try:
            item = parse(obj, line)
        except RefbenchError as exc:
            reject(on_invalid, exc, item=str(obj.get(id_key, f"line {line}")))
            continue
        yield item


def load_json(path: str | Path) -> Any:
    """A whole JSON document (gz-transparent); invalid JSON names the file and line."""
    with open_text(path) as fh:
        try:
            return json.load(fh)
        except json.JSONDecodeError as exc:
            raise RefbenchError(f"invalid JSON ({exc.msg}, column {exc.colno})", path=path,
                                line=exc.lineno) from None
        except RecursionError:
            raise RefbenchError("invalid JSON (nested too deeply)", path=path) from None


def load_json_list(path: str | Path, what: str = "items") -> list[Any]:
    data = load_json(path)
    if not isinstance(data, list):
        raise RefbenchError(f"expected a JSON list of {what}, found {json_type(data)}", path=path)
    return data


def load_json_object(path: str | Path, what: str = "object") -> dict[str, Any]:
    data = load_json(path)
    if not isinstance(data, dict):
        raise RefbenchError(f"expected a JSON {what}, found {json_type(data)}", path=path)
    return data


def json_type(value: Any) -> str:
    """How JSON would name a value's type, for messages ("a list", "a string", "null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return f"a string ({value[:40]!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
