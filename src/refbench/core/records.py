"""Checking the shape of a record read from a file, once, in one place.

Readers wrap each raw JSON object in a :class:`Record` and take typed fields from it. Every
accessor checks the type (booleans are never numbers or indices; numbers must be finite) and the
bounds, and fails with one error naming the file, the line or id, the field and what was
expected, e.g. ``error E400: tne.jsonl:3: doc12: field 'nps[4].first_token': expected an
integer >= 0, found a string ('x')``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.inputs import json_type

_MISSING: Any = object()


@dataclass(frozen=True)
class Where:
    """Where a record came from: file, line (JSON Lines) and/or item (an id or index)."""

    path: str | Path | None = None
    line: int | None = None
    item: str | None = None

    def error(self, message: str) -> RefbenchError:
        return RefbenchError(message, path=self.path, line=self.line, item=self.item)

    def with_item(self, item: str | None) -> Where:
        return Where(self.path, self.line, item)


def _int_text(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f"an integer from {minimum} to {maximum}"
    if minimum is not None:
        return f"an integer >= {minimum}"
    return "an integer"


def check_int(value: Any, name: str, where: Where, *, min: int | None = None,
              max: int | None = None, numeric_text: bool = False, exact: bool = False) -> int:
    """``value`` as an int (a bool is not one; ``numeric_text`` also accepts ``"3"``; a whole
    float such as ``2.0`` is accepted unless ``exact``: spans and indices that refbench itself
    writes as integers are ``exact``, so a file that writes them otherwise is refused)."""
    result: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        result = value
    elif isinstance(value, float) and value.is_integer() and not exact:
        result = int(value)
    elif numeric_text and isinstance(value, str) and value.strip().lstrip("-").isdigit():
        result = int(value.strip())
    if result is None or (min is not None and result < min) or (max is not None
                                                                and result > max):
        raise where.error(f"field {name!r}: expected {_int_text(min, max)}, found "
                          f"{json_type(value)}")
    return result


def check_number(value: Any, name: str, where: Where) -> float:
    """``value`` as a finite float (a bool or a string is not a number)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    raise where.error(f"field {name!r}: expected a finite number, found {json_type(value)}")


def check_str(value: Any, name: str, where: Where, *, nonempty: bool = False) -> str:
    if not isinstance(value, str) or (nonempty and not value.strip()):
        expected = "a non-empty string" if nonempty else "a string"
        raise where.error(f"field {name!r}: expected {expected}, found {json_type(value)}")
    return value


def check_list(value: Any, name: str, where: Where, *, nonempty: bool = False,
               length: int | None = None) -> list[Any]:
    ok = isinstance(value, list) and (not nonempty or value) and (length is None
                                                                  or len(value) == length)
    if not ok:
        expected = (f"a list of {length}" if length is not None
                    else "a non-empty list" if nonempty else "a list")
        found = f"a list of {len(value)}" if isinstance(value, list) else json_type(value)
        raise where.error(f"field {name!r}: expected {expected}, found {found}")
    return list(value)


class Record:
    """One JSON object read from a data file (plugins: ``refbench.api.InputRecord``), with
    accessors that take a field typed and checked, or fail with the one error line that names
    the file, the line or id (``where``), the field and what was expected::

        rec = InputRecord(obj, Where(path, line=n))
        text = rec.string("sentence", nonempty=True)  # a str; missing or not one: error
        options = rec.strings("options")  # a list of str
        gold = rec.integer("gold", None, min=0, max=1)  # None when absent; a bool: error
        meta = rec.record("meta", None)  # a nested object, itself an InputRecord

    Every accessor takes a ``default`` (returned when the field is absent; without one, a
    missing field is an error): :meth:`string`, :meth:`text` (a string, or an id written as a
    number), :meth:`strings`, :meth:`integer` (``min``, ``max``; ``numeric_text`` accepts
    ``"3"``; ``exact`` refuses ``2.0``), :meth:`number` (finite), :meth:`items` (a list,
    ``nonempty`` or of ``length``), :meth:`record` / :meth:`records` (nested objects, their
    fields named ``outer.inner`` in errors), :meth:`raw` (unchecked) and :meth:`has` (present
    and not null)."""

    def __init__(self, obj: Any, where: Where, *, prefix: str = "") -> None:
        if not isinstance(obj, dict):
            what = f"field {prefix.rstrip('.')!r}: expected" if prefix else "expected"
            raise where.error(f"{what} a JSON object, found {json_type(obj)}")
        self.obj: dict[str, Any] = obj
        self.where = where
        self.prefix = prefix

    def name(self, key: str) -> str:
        return f"{self.prefix}{key}"

    def has(self, key: str) -> bool:
        return key in self.obj and self.obj[key] is not None

    def raw(self, key: str, default: Any = _MISSING) -> Any:
        if key in self.obj:
            return self.obj[key]
        if default is _MISSING:
            raise self.where.error(f"missing field {self.name(key)!r}")
        return default

    def integer(self, key: str, default: Any = _MISSING, *, min: int | None = None,
            max: int | None = None, numeric_text: bool = False, exact: bool = False) -> Any:
        value = self.raw(key, default)
        if value is default and default is not _MISSING:
            return default
        if type(value) is int and (min is None or value >= min) and (max is None
                                                                      or value <= max):
            return value  # the common case, without building a field name
        return check_int(value, self.name(key), self.where, min=min, max=max,
                         numeric_text=numeric_text, exact=exact)

    def number(self, key: str, default: Any = _MISSING) -> Any:
        value = self.raw(key, default)
        if value is default and default is not _MISSING:
            return default
        return check_number(value, self.name(key), self.where)

    def string(self, key: str, default: Any = _MISSING, *, nonempty: bool = False) -> Any:
        value = self.raw(key, default)
        if value is default and default is not _MISSING:
            return default
        return check_str(value, self.name(key), self.where, nonempty=nonempty)

    def text(self, key: str, default: Any = _MISSING) -> Any:
        """A string, or a number/identifier written as one (ids are often numbers)."""
        value = self.raw(key, default)
        if value is default and default is not _MISSING:
            return default
        if type(value) is str:
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return check_str(value, self.name(key), self.where)

    def items(self, key: str, default: Any = _MISSING, *, nonempty: bool = False,
             length: int | None = None) -> Any:
        value = self.raw(key, default)
        if value is default and default is not _MISSING:
            return default
        return check_list(value, self.name(key), self.where, nonempty=nonempty, length=length)

    def strings(self, key: str, default: Any = _MISSING) -> Any:
        value = self.raw(key, default)
        if value is default and default is not _MISSING:
            return default
        if type(value) is list and all(type(x) is str for x in value):
            return list(value)
        items = check_list(value, self.name(key), self.where)
        for i, x in enumerate(items):
            check_str(x, f"{self.name(key)}[{i}]", self.where)
        return items

    def record(self, key: str, default: Any = _MISSING) -> Any:
        """A nested object as a Record (its fields named ``key.field`` in messages)."""
        value = self.raw(key, default)
        if value is default and default is not _MISSING:
            return default
        return Record(value, self.where, prefix=f"{self.name(key)}.")

    def records(self, key: str, default: Any = _MISSING) -> Any:
        """A list of objects as Records (named ``key[i].field`` in messages)."""
        value = self.raw(key, default)
        if value is default and default is not _MISSING:
            return default
        items = check_list(value, self.name(key), self.where)
        return [Record(x, self.where, prefix=f"{self.name(key)}[{i}].")
                for i, x in enumerate(items)]
