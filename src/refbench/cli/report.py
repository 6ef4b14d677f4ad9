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
              help="Print the results as one JSON object (identities, coverage, figures).")
@transactional
def report(results: tuple[Path, ...], from_store: bool, store: Path | None,
           run_ids: str | None, tag: str | None, fmt: str, metric: str | None, ci: bool,
           standalone: bool, plot: Path | None, out: Path | None, as_json: bool) -> None:
    """Render results as tables for a paper: result files (refbench evaluate --out), run folders
    (refbench run --out), or runs in the results store (--from-store). KITMUS: variant rows in
    the paper's order x one 2/3/4-entity column group per system, with the chance row; other
    tasks: one row per system and data set, naming the model, the data and the split.
    """
    from refbench.core.errors import UsageError
    from refbench.reporting.render import FORMATS
    from refbench.reporting.reporting import build_tables, draw_plot
    from refbench.reporting.summary import summary_report

    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    if from_store:
        from refbench.reporting.results import store_results
        from refbench.runs.store import Store

        skipped: list[str] = []
        ids = parse_ints(run_ids, "--runs")  # a bad option is named before the store is opened
        with Store(store, readonly=True) as st:
            click.echo(st.describe(), err=True)
            data = store_results(st, ids=ids, tag=tag, skipped=skipped)
        for note in skipped:
            click.echo(f"note: left out {note}", err=True)
        if not data:
            raise UsageError("no runs in the results store match" if (run_ids or tag)
                             else "every run in the results store covers only part of its "
                             "data (--limit): nothing to tabulate" if skipped
                             else "the results store has no runs yet")
    elif results and not as_json and (text := summary_report(results, fmt,
                                                             standalone=standalone)):
        _output(text, out)  # the folder of a several-benchmark run: its summary table
        return
    elif results:
        from refbench.reporting.results import load_results

        data = load_results(results, label=not as_json)
        for r in data:
            cov = r.get("data_coverage")
            if isinstance(cov, dict):
                click.echo(f"note: {r.get('_path')} covers {cov.get('n')} of {cov.get('of')} "
                           f"instances of its data ({cov.get('by', '--limit')})", err=True)
    else:
        raise UsageError("give result files or run folders, or --from-store")
    if as_json:
        from refbench.core.commands import print_json
        from refbench.reporting.results import result_summaries

        print_json({"results": result_summaries(data)})
        return
    text = build_tables(data, fmt=fmt, metric=metric, ci=ci, standalone=standalone)
    if not text.strip():
        from refbench.core.errors import RefbenchError

        raise RefbenchError("no figures to report: the results hold no metrics (a result "
                            "written by refbench evaluate --out or refbench run has them)",
                            path=", ".join(str(r.get("_path", "?")) for r in data))
    _output(text, out)
    if plot is not None:
        draw_plot(data, plot, metric=metric)
        click.echo(f"plot: {plot}", err=True)


def _output(text: str, out: Path | None) -> None:
    from refbench.core.io import write_text_atomic

    if out is not None:
        write_text_atomic(out, text)
        click.echo(f"table: {out}", err=True)
    else:
        click.echo(text, nl=False)
