"""Check a built documentation site: every refbench command and subcommand has its section in
the command-line reference (so a command added without a docstring or left out of the app
fails ``make docs``).

    python scripts/check_docs.py build/docs
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from refbench.cli import app


def command_ids(cmd: click.Command, path: str = "refbench") -> list[str]:
    """The anchors sphinx-click gives a command and all its subcommands."""
    ids = [path.replace(" ", "-")]
    if isinstance(cmd, click.Group):
        for name, sub in sorted(cmd.commands.items()):
            ids += command_ids(sub, f"{path} {name}")
    return ids


def main() -> int:
    site = Path(sys.argv[1] if len(sys.argv) > 1 else "build/docs")
    html = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    missing = [i for i in command_ids(app)[1:] if f'id="{i}"' not in html]
    if missing:
        print(f"error: the CLI reference misses {', '.join(missing)}", file=sys.stderr)
        return 1
    print(f"docs: {len(command_ids(app)) - 1} commands documented in {site}/reference/cli.html")
    return 0


if __name__ == "__main__":
    sys.exit(main())
