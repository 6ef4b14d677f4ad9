"""What ``--help`` shows beyond Click's defaults: examples that run as written, and lists of
registered things (tasks, formats) filled in when the help is shown.

Examples are an epilog of lines as typed in a shell (:func:`examples`); Click prints them as
written (a ``\\b`` paragraph) and :func:`read_examples` reads them back, so a test can run every
example of every command in order (tests/docs/test_help_examples.py). A line may end in a shell
comment; ``# needs: WHAT`` marks an example that needs what a fresh checkout beside
``../shared`` cannot give (a server, the network, a GPU, a model trained for hours), and the
test leaves exactly those out.

A help text that lists what is registered names it as ``{field}``, filled by a function when
the help is shown (:class:`FilledOption`, :class:`FilledCommand`): the list then comes from the
registries as they are at that moment, a plugin's task included, and building the command line
loads nothing. This floor never imports the registries above it: the caller passes the
functions.
"""

from __future__ import annotations

import inspect
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import click

#: The comment that marks an example the tests cannot run (``# needs: a browser``).
NEEDS = "needs:"
#: Widest example line, so that the help fits in Click's 100 columns (2 + 2 of indentation).
WIDTH = 94
_HEADER = re.compile(r"^\s*Examples?:\s*$")
_ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")
_TOKEN = re.compile(r"""(?:[^\s"']+|"[^"]*"|'[^']*')+""")


def examples(*lines: str) -> str:
    """A command's epilog: ``lines`` as typed in a shell, in the order they run, each optionally
    ending in a comment (``  # note``, ``  # needs: WHAT``). A long command is continued on the
    next line with a backslash, never inside a word or a quoted text, so every line can be
    pasted into a shell; a comment that does not fit after it takes lines of its own."""
    out = ["\b", "Example:" if len(lines) == 1 else "Examples:"]
    for line in lines:
        command, _, note = (part.strip() for part in line.partition("  # "))
        rows = _wrap(_TOKEN.findall(command), WIDTH - 4)
        last = len(rows) - 1
        out.extend("  " + ("    " if i else "") + row + (" \\" if i < last else "")
                   for i, row in enumerate(rows))
        if not note:
            continue
        if len(out[-1]) + len(note) + 4 <= WIDTH:
            out[-1] += f"  # {note}"
        else:
            out.extend(f"      # {row}" for row in _wrap(note.split(" "), WIDTH - 8))
    return "\n".join(out)


def _wrap(words: list[str], width: int) -> list[str]:
    rows: list[str] = []
    for word in words:
        if rows and len(rows[-1]) + 1 + len(word) <= width:
            rows[-1] = f"{rows[-1]} {word}"
        else:
            rows.append(word)
    return rows or [""]


@dataclass(frozen=True)
class Example:
    """One example as a shell would run it: leading ``NAME=value`` assignments (``env``), the
    arguments after ``refbench`` (``args``, split and unquoted as a shell does, without glob
    or ``~`` expansion), and its comment (``note``)."""

    text: str
    args: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    note: str = ""

    @property
    def needs(self) -> str | None:
        """What the example needs that a fresh checkout beside ``../shared`` lacks, if any."""
        return self.note[len(NEEDS):].strip() if self.note.startswith(NEEDS) else None


def read_examples(help_text: str) -> list[Example]:
    """The examples a command's help shows (what :func:`examples` wrote), in order; a line that
    is not a ``refbench`` command is an error, so a help text cannot hide an example from the
    tests by misspelling it."""
    found: list[Example] = []
    lines = iter(help_text.splitlines())
    for line in lines:
        if _HEADER.match(line):
            break
    else:
        return found
    command: list[str] = []
    notes: dict[int, list[str]] = {}
    texts: list[str] = []
    for line in lines:
        text = line.strip()
        if not text:
            break
        if text.startswith("#") and texts and not command:
            notes.setdefault(len(texts) - 1, []).append(text.lstrip("#").strip())
            continue
        body, note = _split_comment(text)
        command.append(body.removesuffix("\\").strip())
        if note:
            notes.setdefault(len(texts), []).append(note)
        if not body.endswith("\\"):
            texts.append(" ".join(command))
            command = []
    if command:
        texts.append(" ".join(command))
    for i, text in enumerate(texts):
        found.append(_example(text, " ".join(notes.get(i, []))))
    return found


def _split_comment(line: str) -> tuple[str, str]:
    """``line`` without its shell comment (a ``#`` outside quotes after whitespace), and it."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line, ""


def _example(text: str, note: str) -> Example:
    words = shlex.split(text)
    env = {}
    while words and _ASSIGNMENT.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    if not words or words[0] != "refbench":
        raise ValueError(f"not a refbench command: {text!r}")
    return Example(text=text, args=tuple(words[1:]), env=env, note=note)


# -- lists filled in when the help is shown ------------------------------------------------------

Fill = Callable[[], str]


def or_list(names: Iterable[str]) -> str:
    """``a, b or c``: how a help text lists a few names."""
    items = list(names)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def _filled(text: str | None, fills: Mapping[str, Fill]) -> str | None:
    if text is None:
        return None
    text = inspect.cleandoc(text)
    for name, fill in fills.items():
        if "{" + name + "}" in text:
            text = text.replace("{" + name + "}", fill())
    return text


class _FilledHelp:
    """A help text with ``{field}``s, each the text ``fills[field]()`` returns when the help is
    shown: the template is kept, the fills run at every read."""

    fills: dict[str, Fill]
    _template: str | None

    @property
    def help(self) -> str | None:
        return _filled(self._template, self.fills)

    @help.setter
    def help(self, value: str | None) -> None:
        self._template = value


class FilledOption(_FilledHelp, click.Option):
    """An option whose help has ``{field}``s (``cls=FilledOption, fills={...}``)."""

    def __init__(self, *args: Any, fills: Mapping[str, Fill], **kwargs: Any) -> None:
        self.fills = dict(fills)
        super().__init__(*args, **kwargs)


class FilledCommand(_FilledHelp, click.Command):
    """A command whose help (its docstring) has ``{field}``s, as :class:`FilledOption`."""

    def __init__(self, *args: Any, fills: Mapping[str, Fill], **kwargs: Any) -> None:
        self.fills = dict(fills)
        super().__init__(*args, **kwargs)


__all__ = ["NEEDS", "Example", "FilledCommand", "FilledOption", "examples", "or_list",
           "read_examples"]
