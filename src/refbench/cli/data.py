"""``refbench data``: the benchmarks' published releases by name (get, list, path)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from refbench.core.commands import CONTEXT, print_json
from refbench.core.help_text import examples

DIR_HELP = ("The data folder (default: $REFBENCH_DATA_DIR, else "
            "$XDG_DATA_HOME/refbench/data, i.e. ~/.local/share/refbench/data).")


@click.group("data", context_settings=CONTEXT, epilog=examples(
    "refbench data list",
    "refbench data get winobias wsc273  # fetches from the published sources",
    "refbench run --model first --data winobias --out runs/wb"))
def data() -> None:
    """Get the benchmarks' published releases by name, checked file by file (sha256), and use
    them as --data NAME (or NAME:SPLIT) in every command."""


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.0f} kB"


@data.command("get", context_settings=CONTEXT, epilog=examples(
    "refbench data get gap knowref",
    "refbench data get all --dir ~/data/refbench  # needs: the network (about 930 "
    "MB)",
    "refbench data get tne --mirror https://example.org/refbench-data  # needs: a "
    "mirror of the releases at that address"))
@click.argument("names", nargs=-1, required=True)
@click.option("--dir", "folder", type=click.Path(path_type=Path, file_okay=False), default=None,
              help=DIR_HELP)
@click.option("--mirror", default=None, metavar="URL",
              help="Fetch from a mirror laid out like the reference copy of the releases: "
                   "URL/<path> for each file (its gzipped form where that copy keeps one); "
                   "an http(s):// or file:// URL, or a local folder.")
@click.option("--retries", type=click.IntRange(0, 10), default=2, show_default=True,
              help="Retries per file after a failed or corrupt download.")
@click.option("--min-rate", type=float, default=None, metavar="BYTES/S",
              help="Give up on a file that arrives slower than this on average: each file's "
                   "total deadline is 75 s plus its size at this rate (default: "
                   "$REFBENCH_MIN_RATE, else 20000).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def get_cmd(names: tuple[str, ...], folder: Path | None, mirror: str | None, retries: int,
            min_rate: float | None, as_json: bool) -> None:
    """Fetch releases (NAME..., or `all`) into the data folder. Each file comes from its
    published source at a pinned commit (or from --mirror) and is kept only if its sha256 is
    the pinned one; files already there are checked, not fetched again. Prints each release's
    licence."""
    from refbench.public.data import get_releases

    def say(line: str) -> None:
        click.echo(line, err=as_json)

    got = get_releases(names, folder=folder, mirror=mirror, retries=retries,
                       min_rate=min_rate, progress=not as_json and sys.stderr.isatty(),
                       say=say)
    if as_json:
        print_json(got)


@data.command("list", context_settings=CONTEXT, epilog=examples(
    "refbench data list",
    "refbench data list --verify --json"))
@click.option("--dir", "folder", type=click.Path(path_type=Path, file_okay=False), default=None,
              help=DIR_HELP)
@click.option("--verify", is_flag=True, help="Check every file's sha256 (default: its size).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def list_cmd(folder: Path | None, verify: bool, as_json: bool) -> None:
    """List the known releases: what is in the data folder, the splits --data NAME:SPLIT
    takes, the licence, and what cannot be fetched from a public URL."""
    from refbench.public.data import list_releases

    listed = list_releases(folder=folder, verify=verify)
    if as_json:
        print_json(listed)
        return
    click.echo(f"data folder: {listed['data_dir']}" + (" (sha256 checked)" if verify else ""))
    for row in listed["releases"]:
        click.echo(f"{row['name']:20s} {row['state']:9s} {row['have']:>3d}/{row['files']:<3d} "
                   f"files  {_size(row['bytes']):>9s}  {row['title']}")
        splits = ", ".join(row["splits"]) or "-"
        default = row["default"] or "the whole folder"
        click.echo(f"{'':20s} splits: {splits} (NAME alone: {default})")
        click.echo(f"{'':20s} licence: {row['licence']}")
        for item in row["mirror_only"]:
            click.echo(f"{'':20s} not at a public URL: {item['file']} ({item['note']})")
        if row["not_included"]:
            click.echo(f"{'':20s} not included: {row['not_included']}")


@data.command("path", context_settings=CONTEXT, epilog=examples(
    "refbench data path wsc273",
    "refbench data path tne:dev",
    "refbench data path kitmus:resources"))
@click.argument("reference")
@click.option("--dir", "folder", type=click.Path(path_type=Path, file_okay=False), default=None,
              help=DIR_HELP)
def path_cmd(reference: str, folder: Path | None) -> None:
    """Print the file or folder NAME[:SPLIT] stands for (what --data NAME reads)."""
    from refbench.public.data import release_path

    click.echo(str(release_path(reference, folder=folder)))
