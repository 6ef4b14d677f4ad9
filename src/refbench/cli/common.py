"""Helpers shared by the command modules: error handling, list options, JSON printing."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from refbench.core.errors import RefbenchError, UsageError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def run_guarded(app: Callable[..., Any]) -> int:
    """Run the Click app; expected failures print one numbered line and give exit code 2."""
    try:
        app(standalone_mode=True)  # usage errors exit 2 and --help exits 0, via SystemExit
    except RefbenchError as exc:
        print(exc.render(), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return 0


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
    click.echo(json.dumps(obj, ensure_ascii=False))


PATH = click.Path(path_type=Path)
