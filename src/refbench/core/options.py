"""Declared options and one parser for them: ``key=value`` strings become typed, checked values.

A model (or anything else configured by ``key=value`` pairs) declares its options as a small
tuple of :class:`Option`; :func:`parse_options` turns what the user gave into typed values, and
every problem (an unknown key, ``seed=abc``, ``max_length=-5``, ``concurrency=0``) is one
usage error naming the option and what it expects, instead of a traceback or a silently ignored
key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from refbench.core.errors import UsageError

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Option:
    """One option: its type (``int``, ``float``, ``str`` or ``bool``), default, bounds, choices."""

    name: str
    kind: type
    default: Any = None
    help: str = ""
    min: float | None = None
    choices: tuple[str, ...] = ()

    def expects(self) -> str:
        if self.choices:
            return "one of " + ", ".join(self.choices)
        what = {int: "an integer", float: "a number", bool: "true or false",
                str: "a text"}.get(self.kind, self.kind.__name__)
        if self.min is not None:
            bound = f"{self.min:g}"
            what += f" >= {bound}"
        return what

    def parse(self, value: Any, *, owner: str) -> Any:
        """``value`` (a string from the command line, or already typed) as this option's type."""
        bad = UsageError(f"{owner}: option {self.name}={value!r} is not {self.expects()}")
        if self.kind is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in _TRUE | _FALSE:
                return text in _TRUE
            raise bad
        if self.kind is int:
            if isinstance(value, bool | float):
                raise bad
            try:
                parsed: Any = int(str(value).strip())
            except ValueError:
                raise bad from None
        elif self.kind is float:
            if isinstance(value, bool):
                raise bad
            try:
                parsed = float(str(value).strip())
            except ValueError:
                raise bad from None
            if not math.isfinite(parsed):
                raise bad
        else:
            parsed = str(value)
            if self.choices and parsed not in self.choices:
                raise bad
        if self.min is not None and parsed < self.min:
            raise bad
        return parsed


def parse_options(owner: str, declared: Sequence[Option],
                  given: Mapping[str, Any]) -> dict[str, Any]:
    """The given options, typed and checked; an unknown key is an error listing the known ones.

    Keys may use dashes or underscores (``max-length`` = ``max_length``).
    """
    known = {o.name: o for o in declared}
    out: dict[str, Any] = {}
    for key, value in given.items():
        name = str(key).strip().replace("-", "_")
        option = known.get(name)
        if option is None:
            listing = ", ".join(sorted(known)) if known else "none"
            raise UsageError(f"{owner} has no option {name!r}; its options: {listing}")
        out[name] = option.parse(value, owner=owner)
    return out


def parse_key_values(pairs: Sequence[str], *, flag: str) -> dict[str, str]:
    """``("a=1", "b=x")`` from a repeatable command-line flag as a dict of strings."""
    out: dict[str, str] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{flag} expects key=value, got {item!r}")
        out[key.strip().replace("-", "_")] = value
    return out
