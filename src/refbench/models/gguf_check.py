"""A GGUF file checked before any parser sees it: its size, magic, version, every metadata
entry and tensor description within the file, and the tensor data its header describes all
present. A file cut short (an unfinished download or copy) or that is no GGUF file is one
error line saying which and where, instead of a ``struct.error`` or a reshape error from
inside the loader.

The layout (GGUF versions 2 and 3): ``GGUF``, version (u32), tensor count (u64), metadata
count (u64); the metadata entries (key string, value type u32, value); the tensor infos (name,
dimension count u32, dimensions u64 each, type u32, offset u64); then, aligned to
``general.alignment`` (32 by default), the tensor data. Strings are a u64 length and bytes.
"""

from __future__ import annotations

import math
import mmap
import struct
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError

HEADER = 24  # magic, version, tensor count, metadata count
_FIXED = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_FORMAT = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q",
           11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_LIMIT = 1 << 24  # more entries than any model has: a damaged count


class _Reader:
    """Reads a memory map forward, every read checked against the file's end."""

    def __init__(self, data: Any, size: int, path: Path) -> None:
        self.data, self.size, self.path, self.pos = data, size, path, 4
        self.what = "its header"

    def cut(self, need: int) -> RefbenchError:
        return RefbenchError(f"truncated GGUF file: it ends at byte {self.size:,}, inside "
                             f"{self.what} (which needs byte {need:,}); the file was cut short "
                             "(an unfinished download or copy?)", path=self.path)

    def read(self, n: int) -> bytes:
        end = self.pos + n
        if end > self.size:
            raise self.cut(end)
        out = bytes(self.data[self.pos:end])
        self.pos = end
        return out

    def skip(self, n: int) -> None:
        end = self.pos + n
        if end > self.size:
            raise self.cut(end)
        self.pos = end

    def u32(self) -> int:
        if self.pos + 4 > self.size:
            raise self.cut(self.pos + 4)
        self.pos += 4
        return int(struct.unpack_from("<I", self.data, self.pos - 4)[0])

    def u64(self) -> int:
        if self.pos + 8 > self.size:
            raise self.cut(self.pos + 8)
        self.pos += 8
        return int(struct.unpack_from("<Q", self.data, self.pos - 8)[0])

    def count(self, what: str) -> int:
        n = self.u64()
        if n > _LIMIT:
            raise RefbenchError(f"damaged GGUF file: {what} is {n:,}", path=self.path)
        return n

    def string(self) -> str:
        n = self.u64()
        if n > self.size:
            raise self.cut(self.pos + n)
        return self.read(n).decode("utf-8", "replace")

    def value(self, kind: int) -> Any:
        if kind in _FIXED:
            return struct.unpack(_FORMAT[kind], self.read(_FIXED[kind]))[0]
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            inner, n = self.u32(), self.count("an array's length")
            if inner in _FIXED:
                self.skip(n * _FIXED[inner])
            elif inner == _STRING:
                for _ in range(n):
                    self.skip(self.u64())
            else:
                for _ in range(n):
                    self.value(inner)
            return None
        raise RefbenchError(f"damaged GGUF file: unknown value type {kind} in {self.what}",
                            path=self.path)


def _quant_sizes() -> dict[int, tuple[int, int]]:
    """(block size, bytes per block) of each tensor type, from the ``gguf`` package."""
    try:
        from gguf import GGML_QUANT_SIZES
    except ImportError:  # without it only the header is checked
        return {}
    return {int(k): (int(v[0]), int(v[1])) for k, v in GGML_QUANT_SIZES.items()}


def check_gguf(path: Path) -> None:
    """Raise one error when ``path`` is not a whole GGUF file (see the module docstring)."""
    try:
        size = path.stat().st_size
        fh = path.open("rb")
    except OSError as exc:
        raise RefbenchError(f"cannot read the GGUF file ({exc.strerror or exc})",
                            path=path) from None
    with fh:
        head = fh.read(4)
        if size >= 4 and head != b"GGUF":
            raise RefbenchError(f"not a GGUF file: it starts with {head!r}, not b'GGUF'",
                                path=path)
        if size < HEADER:
            raise RefbenchError(f"truncated GGUF file: {size} bytes, shorter than the "
                                f"{HEADER}-byte GGUF header", path=path)
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
            n_tensors, start, tensors = _header(_Reader(data, size, path))
    _check_data(path, size, n_tensors, start, tensors)


def _header(r: _Reader) -> tuple[int, int, list[tuple[str, list[int], int, int]]]:
    """(tensor count, where the tensor data starts, the tensor infos)."""
    version = r.u32()
    if version not in (2, 3):
        raise RefbenchError(f"GGUF version {version}: refbench reads versions 2 and 3",
                            path=r.path)
    n_tensors, n_meta = r.count("its tensor count"), r.count("its metadata count")
    alignment = 32
    for k in range(n_meta):
        r.what = f"metadata entry {k + 1} of {n_meta}"
        key = r.string()
        r.what = f"metadata entry {k + 1} of {n_meta} ({key})"
        value = r.value(r.u32())
        if key == "general.alignment" and isinstance(value, int) and value > 0:
            alignment = value
    tensors = []
    for k in range(n_tensors):
        r.what = f"tensor description {k + 1} of {n_tensors}"
        name = r.string()
        dims = [r.u64() for _ in range(r.u32())]
        kind, offset = r.u32(), r.u64()
        tensors.append((name, dims, kind, offset))
    return n_tensors, -(-r.pos // alignment) * alignment, tensors


def _check_data(path: Path, size: int, n_tensors: int, start: int,
                tensors: list[tuple[str, list[int], int, int]]) -> None:
    sizes = _quant_sizes()
    end, last = start, ""
    for name, dims, kind, offset in tensors:
        if kind not in sizes:
            continue
        block, nbytes = sizes[kind]
        stop = start + offset + math.prod(dims) // block * nbytes
        if stop > end:
            end, last = stop, name
    if end > size:
        raise RefbenchError(f"truncated GGUF file: {size:,} bytes, but its header describes "
                            f"{n_tensors} tensors whose data ends at byte {end:,} (tensor "
                            f"{last}); the file was cut short (an unfinished download or "
                            "copy?)", path=path)
