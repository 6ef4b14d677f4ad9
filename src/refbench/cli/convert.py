"""``refbench convert``: KITMUS-style data between CoNLL-2012, jsonlines, GAP TSV and text."""

from __future__ import annotations

from pathlib import Path

import click

from refbench.cli.common import CONTEXT, DATA, OUT_FILE

EXAMPLE = ("Examples: refbench convert suite/background-both/subtask_2_ents/test.jsonl test.tsv "
           "--view task-text-only  |  refbench convert test.v4_gold_conll test.jsonlines.gz")


@click.command("convert", context_settings=CONTEXT, epilog=EXAMPLE)
@click.argument("src", type=DATA)
@click.argument("dst", type=OUT_FILE)
@click.option("--to", default=None, help="conll, jsonlines, tsv or txt (default: from DST).")
@click.option("--view", default="full-text", show_default=True,
              help="For native input: full-text, task-text-only, knowledge-text-only.")
def convert_cmd(src: Path, dst: Path, to: str | None, view: str) -> None:
    """Convert SRC (.v4_gold_conll/.conll, .jsonlines or native .jsonl, optionally .gz) into DST:
    CoNLL-2012, e2e-coref jsonlines, GAP TSV (2 entities) or text. Converted gold scores 1.0
    against the original.
    """
    from refbench.core.errors import UsageError
    from refbench.tasks.kitmus.convert import convert
    from refbench.tasks.kitmus.instance import VIEWS

    if view not in VIEWS:
        raise UsageError(f"unknown view {view!r}; choose from {', '.join(VIEWS)}")
    n = convert(src, dst, target=to, view=view)
    click.echo(f"wrote {n} documents to {dst}")
