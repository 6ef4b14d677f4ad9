"""``refbench report``: paper-style tables and plots from result files."""

from __future__ import annotations

from pathlib import Path

import click

from refbench.cli.common import CONTEXT, OUT_FILE, PATH, parse_ints, transactional

EXAMPLE = ("Examples: refbench report results/*.json --format latex  |  refbench report "
           "suite-results.json --format md --plot accuracy.png")


@click.command(context_settings=CONTEXT, epilog=EXAMPLE)
@click.argument("results", type=PATH, nargs=-1)
@click.option("--from-store", is_flag=True, help="Use runs recorded in the results store.")
@click.option("--store", type=PATH, default=None, help="Results store.")
@click.option("--runs", "run_ids", default=None, help="Store run ids, e.g. 3,4,7 (default: all).")
@click.option("--format", "fmt", default="md", show_default=True, help="md, latex, html or csv.")
@click.option("--metric", default="pronoun_accuracy", show_default=True,
              help="KITMUS metric in the cells (e.g. antecedent_f1).")
@click.option("--plot", type=OUT_FILE, default=None,
              help="Also draw accuracy vs entities (PNG).")
@click.option("--out", type=OUT_FILE, default=None,
              help="Write the table here instead of stdout.")
@transactional
def report(results: tuple[Path, ...], from_store: bool, store: Path | None,
           run_ids: str | None, fmt: str, metric: str, plot: Path | None,
           out: Path | None) -> None:
    """Render result files (refbench evaluate --out) or runs from the results store
    (--from-store) as a table: systems x variant x 2/3/4
    entities with a random-baseline row for KITMUS, one row per file for other tasks; optionally
    plot accuracy against the number of entities per variant.
    """
    from refbench.core.errors import UsageError
    from refbench.core.io import write_text_atomic
    from refbench.report.tables import (
        FORMATS,
        generic_grid,
        kitmus_cells,
        kitmus_grid,
        load_results,
        render,
    )

    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    if from_store:
        from refbench.runs.store import Store

        wanted = parse_ints(run_ids, "--runs")
        st = Store(store)
        ids = wanted or [r["run_id"] for r in reversed(st.runs(limit=100_000))]
        data = [{**st.get(i)["metrics"], "_path": f"run {i}"} for i in ids]
    elif results:
        data = load_results(results)
    else:
        raise UsageError("give result files or --from-store")
    cells, random = kitmus_cells(data, metric)
    if cells:
        header, rows = kitmus_grid(cells, random)
        title = metric.replace("_", " ")
    else:
        header, rows = generic_grid(data)
        title = "results"
    table = render(header, rows, fmt, title=title)
    if out is not None:
        write_text_atomic(out, table)
    else:
        click.echo(table, nl=False)
    if plot is not None:
        if not cells:
            raise UsageError("--plot needs KITMUS results")
        from refbench.report.plots import plot_entities

        plot_entities(cells, random, plot, metric=title)
        click.echo(f"plot: {plot}", err=True)
