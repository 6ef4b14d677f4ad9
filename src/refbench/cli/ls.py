"""``refbench ls``: what is registered."""

from __future__ import annotations

import click

from refbench.cli.common import CONTEXT, print_json
from refbench.core.registry import ALL


@click.command("ls", context_settings=CONTEXT, epilog="Examples: refbench ls  |  refbench ls "
               "variants  |  refbench ls tasks --json")
@click.argument("kind", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def ls(kind: str | None, as_json: bool) -> None:
    """List what is registered: variants, formats, resource layouts, tasks, metrics,
    prediction formats. KIND limits the listing to one registry."""
    from refbench.core.errors import UsageError

    if kind is not None and kind not in ALL:
        raise UsageError(f"unknown registry {kind!r}; choose from {', '.join(ALL)}")
    chosen = {kind: ALL[kind]} if kind else ALL
    if as_json:
        print_json({k: [{"name": e.name, "summary": e.summary} for e in reg.entries()]
                    for k, reg in chosen.items()})
        return
    for k, reg in chosen.items():
        click.echo(f"{k}:")
        for e in reg.entries():
            click.echo(f"  {e.name:42s} {e.summary}")
        for alias, target in reg.aliases().items():
            click.echo(f"  {alias:42s} alias of {target}")
