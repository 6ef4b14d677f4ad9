"""``refbench ls``: what is registered."""

from __future__ import annotations

import typer

from refbench.cli.common import print_json
from refbench.core.registry import ALL


def ls(
    kind: str = typer.Argument(None, help=f"One of: {', '.join(ALL)}. Omit to list all."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """List registered variants, formats and resource layouts.

    Example: refbench ls variants
    """
    from refbench.core.errors import UsageError

    if kind is not None and kind not in ALL:
        raise UsageError(f"unknown registry {kind!r}; choose from {', '.join(ALL)}")
    chosen = {kind: ALL[kind]} if kind else ALL
    if as_json:
        print_json({k: [{"name": e.name, "summary": e.summary} for e in reg.entries()]
                    for k, reg in chosen.items()})
        return
    for k, reg in chosen.items():
        typer.echo(f"{k}:")
        for e in reg.entries():
            typer.echo(f"  {e.name:42s} {e.summary}")
        for alias, target in reg.aliases().items():
            typer.echo(f"  {alias:42s} alias of {target}")
