"""The ``refbench`` command line: parses arguments and calls library functions, nothing more."""

from __future__ import annotations

import sys

import typer

from refbench.cli import kitmus as kitmus_cli
from refbench.cli.common import EXAMPLES_EPILOG, run_guarded
from refbench.cli.ls import ls

app = typer.Typer(
    name="refbench",
    help="Knowledge-intensive reference resolution: generate, load, run and score benchmarks.",
    epilog=EXAMPLES_EPILOG,
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)
app.command("ls", epilog="Example: refbench ls variants")(ls)
app.add_typer(kitmus_cli.app, name="kitmus")


def main() -> None:
    """Console entry point: expected failures print one line and exit 2."""
    sys.exit(run_guarded(app))
