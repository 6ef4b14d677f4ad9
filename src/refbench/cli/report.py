"""``refbench report``: paper-style tables and plots from result files, run folders or the store."""

from __future__ import annotations

from pathlib import Path

import click

from refbench.core.commands import CONTEXT, OUT_FILE, PATH, parse_ints, transactional
from refbench.core.help_text import examples

EXAMPLE = (examples(
    "refbench report runs/km --format latex --ci --out table.tex  # runs/km: "
    "refbench run --help",
    "refbench report --from-store --format html --out results.html",
    "refbench report suite-results.json --plot accuracy.png  # suite-results.json: "
    "refbench evaluate --help",
    "refbench report gap.json runs/km --format csv  # gap.json: refbench evaluate "
    "--help"))


@click.command(context_settings=CONTEXT, epilog=EXAMPLE)
@click.argument("results", type=PATH, nargs=-1)
@click.option("--from-store", is_flag=True, help="Use runs recorded in the results store.")
@click.option("--store", type=PATH, default=None, help="Results store (default: the project's).")
@click.option("--runs", "run_ids", default=None, help="Store run ids, e.g. 3,4,7 (default: all).")
@click.option("--tag", default=None, help="Only store runs with this tag (refbench results tag).")
@click.option("--format", "fmt", default="md", show_default=True,
              help="md, latex (booktabs table), html (a complete page) or csv (tidy: one row "
                   "per figure).")
@click.option("--metric", default=None,
              help="The figure in the cells: KITMUS pronoun_accuracy (default), antecedent_f1, "
                   "...; other tasks: e.g. accuracy or f1 (default: each task's headline set).")
@click.option("--ci", is_flag=True, help="Show 95% intervals (and n where it varies).")
@click.option("--standalone", is_flag=True, help="LaTeX: a complete document, not a table.")
@click.option("--plot", type=OUT_FILE, default=None,
              help="Also draw a PNG: a task's own figure when all results are of one task "
                   "(KITMUS: accuracy vs entities; WinoBias: Pro/Anti/Diff), else bars of "
                   "every result.")
@click.option("--out", type=OUT_FILE, default=None,
              help="Write the table here instead of stdout.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the results as one JSON object (identities, coverage, figures); "
                   "with the model card, one record per system x benchmark x metric.")
@click.option("--card", "as_card", is_flag=True,
              help="The model card: a row per system, a column group per benchmark, each "
                   "benchmark's headline figures with 95% intervals and n of N (the default "
                   "for a folder of several runs, such as refbench run --data A --data B "
                   "--out DIR).")
@click.option("--against", default=None, metavar="SYSTEM",
              help="Model card: mark the cells whose paired test (McNemar's exact) against "
                   "SYSTEM is significant after Holm's correction over the table.")
@click.option("--system", "system_filter", default=None,
              help="--from-store: only runs of this system (display name or model spec).")
@click.option("--task", "task_filter", default=None,
              help="--from-store: only runs of this task.")
@click.option("--data", "data_filter", default=None,
              help="--from-store: only runs on this data (path, file name or sha256).")
@transactional
def report(results: tuple[Path, ...], from_store: bool, store: Path | None,
           run_ids: str | None, tag: str | None, fmt: str, metric: str | None, ci: bool,
           standalone: bool, plot: Path | None, out: Path | None, as_json: bool,
           as_card: bool, against: str | None, system_filter: str | None,
           task_filter: str | None, data_filter: str | None) -> None:
    """Render results as tables for a paper: result files (refbench evaluate --out), run folders
    (refbench run --out), or runs in the results store (--from-store). KITMUS: variant rows in
    the paper's order x one 2/3/4-entity column group per system, with the chance row; other
    tasks: one row per system and data set, naming the model, the data and the split. The
    model card (--card; a folder of several runs) puts every system and benchmark in one table.
    """
    from refbench.core.errors import UsageError
    from refbench.public.tables import report_tables
    from refbench.reporting.card_inputs import needs_card

    if (system_filter or data_filter) and not from_store:
        raise UsageError("--system and --data filter --from-store")
    if as_card or against is not None or (results and needs_card(results)):
        _card(results, from_store=from_store, store=store, run_ids=run_ids, tag=tag,
              system=system_filter, task=task_filter, data=data_filter, fmt=fmt,
              standalone=standalone, plot=plot, out=out, as_json=as_json, against=against)
        return
    ids = parse_ints(run_ids, "--runs") if from_store else None  # named before the store opens
    made = report_tables(results, fmt=fmt, metric=metric, ci=ci, standalone=standalone,
                         from_store=from_store, store=store, run_ids=ids, tag=tag,
                         task=task_filter, as_json=as_json,
                         say=lambda line: click.echo(line, err=True))
    for note in made.notes:
        click.echo(note, err=True)
    if made.summaries is not None:
        from refbench.core.commands import print_json

        print_json({"results": made.summaries})
        return
    assert made.text is not None
    _output(made.text, out)
    if plot is not None and made.data:
        from refbench.reporting.reporting import draw_plot

        draw_plot(made.data, plot, metric=metric)
        click.echo(f"plot: {plot}", err=True)


def _output(text: str, out: Path | None) -> None:
    from refbench.core.io import write_text_atomic

    if out is not None:
        write_text_atomic(out, text)
        click.echo(f"table: {out}", err=True)
    else:
        click.echo(text, nl=False)


def _card(results: tuple[Path, ...], *, from_store: bool, store: Path | None,
          run_ids: str | None, tag: str | None, system: str | None, task: str | None,
          data: str | None, fmt: str, standalone: bool, plot: Path | None, out: Path | None,
          as_json: bool, against: str | None) -> None:
    """The model card of the results or the store's runs (``refbench.card``)."""
    from refbench.core.errors import UsageError
    from refbench.reporting.card_inputs import make_card

    if from_store:
        from refbench.reporting.card_inputs import store_entries
        from refbench.runs.store import Store

        ids = parse_ints(run_ids, "--runs")
        with Store(store, readonly=True) as st:
            click.echo(st.describe(), err=True)
            entries = store_entries(st, ids=ids, tag=tag, system=system, task=task, data=data)
        if not entries:
            raise UsageError("no runs in the results store match")
        made = make_card(entries, against=against)
    elif results:
        made = make_card(results, against=against)
    else:
        raise UsageError("give run folders or result files, or --from-store")
    if as_json:
        from refbench.core.commands import print_json

        print_json(made.to_json())
        return
    _output(made.render(fmt, standalone=standalone), out)
    if plot is not None:
        made.plot(plot)
        click.echo(f"plot: {plot}", err=True)
