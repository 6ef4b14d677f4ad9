"""The building blocks of every command (refbench's own and the task folders'): Click parameter
types that check input and output paths before any work starts, JSON printing, transactional
output, list options, and the runner that turns every outcome into an exit code and one line."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import click

from refbench.core import interrupt
from refbench.core.errors import E_USAGE, OutputError, RefbenchError, UsageError
from refbench.core.io import check_output_dir, check_output_file, json_text, output_group
from refbench.core.output_checks import check_not_input, same_path

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


COUNT = click.IntRange(min=0)  # a number of things: 0 or more
POSITIVE = click.IntRange(min=1)
SEED = click.IntRange(min=0, max=2**32 - 1)  # what numpy and torch accept everywhere
_PATHS = "refbench.paths"  # ctx.meta key: the input and output paths given so far


def _option_name(param: click.Parameter | None) -> str:
    if param is None:
        return "an argument"
    if isinstance(param, click.Argument):
        return param.human_readable_name
    return max(param.opts, key=len) if param.opts else str(param.name)


def _given_paths(ctx: click.Context | None) -> dict[str, list[tuple[Path, str, str]]]:
    """The paths of this invocation, shared by its group and command contexts (``ctx.meta``):
    ``{"in": [(path, option, kind)], "out": [...]}``."""
    if ctx is None:
        return {"in": [], "out": []}
    paths: dict[str, list[tuple[Path, str, str]]] = ctx.meta.setdefault(_PATHS,
                                                                        {"in": [], "out": []})
    return paths


class InputPath(click.Path):
    """An input path (file or folder). Recorded for the command, so that an output path that
    is one of its inputs is refused (see :class:`OutputPath`), in whichever order they come."""

    def __init__(self) -> None:
        super().__init__(path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        path = Path(os.fsdecode(super().convert(value, param, ctx)))
        paths = _given_paths(ctx)
        for out, _, kind in paths["out"]:
            check_not_input(out, [(path, _option_name(param))], kind=kind)
        paths["in"].append((path, _option_name(param), "input"))
        return path


PATH = InputPath()


#: How ``NAME`` or ``NAME:SPLIT`` becomes a path (None: not a release name). The command line,
#: which sits above the releases (``refbench.releases``), sets it when it builds the app: this
#: floor never imports what resolves it.
ReleaseResolver = Callable[[str], Path | None]
_resolver: list[ReleaseResolver] = []


def set_release_resolver(resolver: ReleaseResolver) -> None:
    """Let every :data:`DATA` option resolve release names with ``resolver``."""
    _resolver[:] = [resolver]


class DataPath(InputPath):
    """An input path that may also name a published release: ``NAME`` or ``NAME:SPLIT`` (see
    ``refbench data list``) becomes the file or folder in the data folder that
    ``refbench data get NAME`` filled. A path that exists wins over a name."""

    name = "path or release"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, str) and _resolver and not os.path.lexists(value):
            resolved = _resolver[0](value)
            if resolved is not None:
                value = str(resolved)
        return super().convert(value, param, ctx)


DATA = DataPath()


class OutputPath(click.Path):
    """An output path, checked when the options are parsed (before any work starts): a folder
    where a file is expected, a read-only place or ``/proc/...`` is one error naming the path;
    so is a path that is also one of the command's inputs (or, for a folder, holds one) or
    another of its outputs. ``kind="any"``: a file or a folder, only compared with the others."""

    def __init__(self, kind: str = "file") -> None:
        super().__init__(path_type=Path)
        self.kind = kind
        self.name = f"output {kind}" if kind != "any" else "output path"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        path = Path(os.fsdecode(super().convert(value, param, ctx)))
        if self.kind == "dir":
            check_output_dir(path)
        elif self.kind == "file":
            check_output_file(path)
        paths = _given_paths(ctx)
        check_not_input(path, [(p, name) for p, name, _ in paths["in"]], kind=self.kind)
        for other, name, _ in paths["out"]:
            if same_path(other, path):
                raise OutputError(f"is also the path of another output of this command "
                                  f"({name}): choose two different paths", path=path)
        paths["out"].append((path, _option_name(param), self.kind))
        return path


OUT_FILE = OutputPath("file")
OUT_DIR = OutputPath("dir")
OUT_ANY = OutputPath("any")

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
