"""What every ``refbench study create <type>`` command shares: the annotator, overlap, seed and
output options, and the summary it prints. Each study type builds its own command
(:meth:`refbench.studyfile.kinds.StudyHooks.create_command`) from these."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from refbench.core.commands import OUT_FILE, POSITIVE, SEED, print_json
from refbench.studyfile.create import CreatedStudy

ANNOTATORS_HELP = "How many annotators (ann1..annN), or their names: alice,bob."
OVERLAP_HELP = "Annotators per item (default: every annotator answers every item)."


def report_created(created: CreatedStudy, as_json: bool) -> None:
    info = {"study": str(created.path), "kind": created.kind, "items": created.n_items,
            "annotators": [n for n, _ in created.annotators], **created.summary}
    for w in created.warnings:
        click.secho(f"WARNING: {w}", err=True, fg="yellow", bold=True)
    if created.warnings:
        info["warnings"] = created.warnings
    if as_json:
        print_json(info)
        return
    click.echo(f"wrote {created.path}: {created.kind}, {created.n_items} items, "
               f"{len(created.annotators)} annotators")
    for key, value in created.summary.items():
        if key != "items":
            click.echo(f"  {key}: {value}")
    click.echo(f"serve it with: refbench study serve {created.path}")


F = TypeVar("F", bound=Callable[..., Any])


def create_options(f: F) -> F:
    """The options every ``study create`` command shares."""
    for opt in reversed([
        click.option("--annotators", default="3", show_default=True, help=ANNOTATORS_HELP),
        click.option("--overlap", type=POSITIVE, default=None, help=OVERLAP_HELP),
        click.option("--seed", type=SEED, default=0, show_default=True),
        click.option("--out", type=OUT_FILE, required=True, help="The study file to write."),
        click.option("--overwrite", is_flag=True, help="Replace an existing study file."),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object."),
    ]):
        f = opt(f)
    return f
