"""Helpers shared by the command modules: error handling, list options, JSON printing."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import click

from refbench.core import interrupt
from refbench.core.errors import E_USAGE, RefbenchError, UsageError
from refbench.core.io import check_output_dir, check_output_file, json_text, output_group

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def run_guarded(app: click.Command, args: Sequence[str] | None = None) -> int:
    """Run the Click app and return the exit code: 0 on success; 2 with one numbered line for
    bad input or usage (Click's own usage errors included); 130 with what was kept on Ctrl-C.

    Click's standalone mode would turn Ctrl-C into "Aborted!" with exit code 1 before refbench
    could say anything, so the app runs with ``standalone_mode=False`` and every outcome is
    reported here.
    """
    interrupt.reset()
    try:
        code = app.main(args=list(args) if args is not None else None,
                        prog_name="refbench", standalone_mode=False)
    except RefbenchError as exc:
        print(exc.render(), file=sys.stderr)
        return exc.exit_code
    except click.exceptions.Abort as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):
            return _interrupted()
        print(f"error E{E_USAGE}: aborted", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return _interrupted()
    except interrupt.Terminated:
        print(f"terminated: {interrupt.kept()}", file=sys.stderr)
        return 143
    except click.exceptions.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        print(f"error E{E_USAGE}: {_one_line(exc.format_message())}{hint}", file=sys.stderr)
        return 2
    except click.exceptions.ClickException as exc:
        print(f"error E{E_USAGE}: {_one_line(exc.format_message())}", file=sys.stderr)
        return 2
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return code if isinstance(code, int) else 0


def _interrupted() -> int:
    print(f"interrupted: {interrupt.kept()}", file=sys.stderr)
    return 130


def _one_line(text: str) -> str:
    return " ".join(text.split())


def split_list(value: str | None) -> list[str] | None:
    if value is None:
        return None
    items = [x.strip() for x in value.split(",") if x.strip()]
    return items or None


def parse_ints(value: str | None, option: str) -> list[int] | None:
    items = split_list(value)
    if items is None:
        return None
    try:
        return [int(x) for x in items]
    except ValueError:
        raise UsageError(f"{option} expects comma-separated integers, got {value!r}") from None


def parse_sizes(value: str | None) -> dict[str, int] | None:
    """``train=100,test=50`` or a single number for every split."""
    items = split_list(value)
    if items is None:
        return None
    if len(items) == 1 and "=" not in items[0]:
        try:
            n = int(items[0])
        except ValueError:
            raise UsageError(f"--sizes expects N or split=N,... got {value!r}") from None
        return {"train": n, "validation": n, "test": n}
    out = {}
    for item in items:
        key, sep, num = item.partition("=")
        try:
            if not sep:
                raise ValueError
            out[key.strip()] = int(num)
        except ValueError:
            raise UsageError(f"--sizes expects split=N pairs, got {item!r}") from None
    return out


def print_json(obj: Any) -> None:
    click.echo(json_text(obj))


PATH = click.Path(path_type=Path)
COUNT = click.IntRange(min=0)  # a number of things: 0 or more
POSITIVE = click.IntRange(min=1)
SEED = click.IntRange(min=0, max=2**32 - 1)  # what numpy and torch accept everywhere


class OutputPath(click.Path):
    """An output path, checked when the options are parsed (before any work starts): a folder
    where a file is expected, a read-only place or ``/proc/...`` is one error naming the path."""

    def __init__(self, kind: str = "file") -> None:
        super().__init__(path_type=Path)
        self.kind = kind
        self.name = f"output {kind}"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        path = Path(os.fsdecode(super().convert(value, param, ctx)))
        return check_output_dir(path) if self.kind == "dir" else check_output_file(path)


OUT_FILE = OutputPath("file")
OUT_DIR = OutputPath("dir")

P = ParamSpec("P")
R = TypeVar("R")


def transactional(command: Callable[P, R]) -> Callable[P, R]:
    """Run a command's body as one output group: if it fails or is interrupted, every file it
    wrote is undone (see :func:`refbench.core.io.output_group`)."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with output_group():
            return command(*args, **kwargs)

    return wrapper
