"""Declared options and one parser for them: ``key=value`` strings become typed, checked values.

A model, a task (its reader and scorer) or a trainer declares its options as a small tuple of
:class:`Option` (``ChoiceModel.OPTIONS``, ``Task.READER_OPTIONS`` / ``Task.SCORER_OPTIONS``,
``Trainer.OPTIONS``); :func:`parse_options` turns what the user gave (``--model-arg``,
``--task-arg``, ``--train-arg``) into typed values, and every problem (an unknown key,
``seed=abc``, ``max_length=-5``, ``concurrency=0``) is one usage error naming the option and
what it expects, instead of a traceback or a silently ignored key.

An option may also name command-line ``flags`` of its own (AltEntities' ``--input`` for
``input_type``): the command line builds those flags from the declarations (nothing in
``cli/`` names them), and ``flag=value`` is the same as ``name=value``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from refbench.core.errors import UsageError

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Option:
    """One option: its type (``int``, ``float``, ``str``, ``bool`` or ``Path``: an existing
    file or folder), default, bounds, choices, and the command-line ``flags`` that stand for
    it (``("--input",)``; old flags kept as the owner's own aliases)."""

    name: str
    kind: type
    default: Any = None
    help: str = ""
    min: float | None = None
    choices: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        """The keys that name this option: its name and each flag's (``--max-words``:
        ``max_words``)."""
        return (self.name, *(key_of(f) for f in self.flags))

    def expects(self) -> str:
        if self.choices:
            return "one of " + ", ".join(self.choices)
        what = {int: "an integer", float: "a number", bool: "true or false",
                str: "a text", Path: "an existing file or folder"}.get(self.kind,
                                                                       self.kind.__name__)
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
        elif self.kind is Path:
            parsed = Path(str(value))
            if not str(value).strip() or not parsed.exists():
                raise bad
            return parsed
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

    Keys may use dashes or underscores (``max-length`` = ``max_length``), and an option's
    flag names it too (``input`` = ``input_type`` when it declares ``--input``); the result is
    keyed by the options' names.
    """
    known = {key: o for o in declared for key in reversed(o.names())}
    out: dict[str, Any] = {}
    for key, value in given.items():
        option = known.get(key_of(str(key)))
        if option is None:
            raise UsageError(f"{owner} has no option {key_of(str(key))!r}; its options: "
                             f"{listing(declared)}")
        out[option.name] = option.parse(value, owner=owner)
    return out


def listing(declared: Sequence[Option]) -> str:
    """``a, b (--b), c``: the names of ``declared`` (and their flags), for an error line."""
    if not declared:
        return "none"
    return ", ".join(o.name + (f" ({', '.join(o.flags)})" if o.flags else "")
                     for o in sorted(declared, key=lambda o: o.name))


def key_of(text: str) -> str:
    """The key a ``key=value`` pair or a flag names: ``--max-words`` and ``max-words`` are
    ``max_words``."""
    return text.strip().lstrip("-").replace("-", "_")


def parse_key_values(pairs: Sequence[str], *, flag: str) -> dict[str, str]:
    """``("a=1", "b=x")`` from a repeatable command-line flag as a dict of strings."""
    out: dict[str, str] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{flag} expects key=value, got {item!r}")
        out[key.strip().replace("-", "_")] = value
    return out


class Configured:
    """What takes declared options (a model, a trainer): ``OPTIONS`` lists them, ``argument``
    is what follows ``NAME:`` on the command line, ``options`` holds only the options given
    (typed by :func:`parse_options`), so a default never changes a fingerprint."""

    OPTIONS: ClassVar[tuple[Option, ...]] = ()

    def __init__(self, argument: str | None = None, **options: Any) -> None:
        self.argument = argument
        self.options = parse_options(self.owner(), self.OPTIONS, options)

    def owner(self) -> str:
        """How an error about the options names their owner ("model NAME", "trainer NAME")."""
        raise NotImplementedError

    def option(self, name: str) -> Any:
        """A declared option's value: the one given, else its default."""
        if name in self.options:
            return self.options[name]
        return next(o.default for o in self.OPTIONS if o.name == name)
