"""The whole ``refbench`` command tree as a user meets it: every group and command (the task
folders' and the plugins' included), in the order ``--help`` lists them, and its help text."""

from __future__ import annotations

from collections.abc import Iterator

import click
from click.testing import CliRunner


def command_paths(command: click.Command | None = None,
                  path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """``(path, command)`` for the root and every command below it, depth first: a group, then
    each of its commands in the order its ``--help`` lists them."""
    if command is None:
        from refbench.cli import app

        command = app
    yield path, command
    if isinstance(command, click.Group):
        ctx = click.Context(command, info_name=path[-1] if path else "refbench")
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from command_paths(sub, (*path, name))


def help_text(path: tuple[str, ...]) -> str:
    """What ``refbench PATH --help`` prints."""
    from refbench.cli import app

    result = CliRunner().invoke(app, [*path, "--help"], prog_name="refbench")
    assert result.exit_code == 0, result.output
    return result.output
