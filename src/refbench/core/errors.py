"""Errors meant for people: each has a number, names where it happened, and exits with code 2.

The CLI catches :class:`RefbenchError` and prints ``error E<code>: <where>: <message>`` without a
traceback. Codes are stable so that users can look them up and tests can assert on them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# Numbered error kinds. Keep numbers stable: they are part of the user interface.
E_USAGE = 100  # bad command-line usage (unknown name, bad combination of options)
E_RESOURCE = 200  # a resource file is malformed or insufficient
E_TEMPLATE = 201  # a template is malformed or lacks a slot
E_OUTPUT = 300  # an output folder is not usable
E_INPUT = 400  # an input data file is malformed
E_DOWNLOAD = 500  # a download failed or does not match its pinned checksum (refbench data get)
E_PLUGIN = 600  # an installed plugin's code failed (import, construction, a call): exit code 1


class RefbenchError(Exception):
    """An expected failure caused by input or usage, reported without a traceback."""

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        code: int = E_INPUT,
        path: str | Path | None = None,
        line: int | None = None,
        item: str | None = None,
    ) -> None:
        self.message = message
        self.code = code
        self.path = str(path) if path is not None else None
        self.line = line
        self.item = item
        super().__init__(self.render())

    def __reduce__(self) -> tuple[Any, ...]:
        # Errors cross process boundaries (generator and miner workers): rebuild them with their
        # fields, not from the rendered text, so the message is not prefixed twice.
        return (_rebuild, (type(self), self.message, self.code, self.path, self.line, self.item))

    def where(self) -> str:
        parts: list[str] = []
        if self.path is not None:
            parts.append(self.path if self.line is None else f"{self.path}:{self.line}")
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.item is not None:
            parts.append(self.item)
        return ": ".join(parts)

    def render(self) -> str:
        """The one line shown: control characters (a file name holding a newline) and bytes
        that are not UTF-8 (kept as surrogates) are written as escapes, so the error stays
        one printable line."""
        where = self.where()
        prefix = f"error E{self.code}"
        text = f"{prefix}: {where}: {self.message}" if where else f"{prefix}: {self.message}"
        return one_line(text)


def one_line(text: str) -> str:
    """``text`` with line breaks, other control characters and undecodable bytes escaped."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else _escape(c) for c in text)


def _escape(c: str) -> str:
    if 0xDC80 <= ord(c) <= 0xDCFF:  # a byte kept by surrogateescape
        return f"\\x{ord(c) - 0xDC00:02x}"
    return c.encode("unicode_escape").decode("ascii")


def _rebuild(cls: type[RefbenchError], message: str, code: int, path: str | None,
             line: int | None, item: str | None) -> RefbenchError:
    exc = cls.__new__(cls)
    RefbenchError.__init__(exc, message, code=code, path=path, line=line, item=item)
    return exc


class RefbenchWarning(UserWarning):
    """What the command line prints as ``WARNING: ...``, raised from Python as a warning
    (``warnings.warn(line, RefbenchWarning)``): a figure to read with care, not an error."""


class UsageError(RefbenchError):
    def __init__(self, message: str) -> None:
        super().__init__(message, code=E_USAGE)


class ResourceError(RefbenchError):
    def __init__(
        self, message: str, *, path: str | Path | None = None, line: int | None = None
    ) -> None:
        super().__init__(message, code=E_RESOURCE, path=path, line=line)


class OutputError(RefbenchError):
    def __init__(self, message: str, *, path: str | Path | None = None) -> None:
        super().__init__(message, code=E_OUTPUT, path=path)
