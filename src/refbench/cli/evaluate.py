"""``refbench evaluate``: score predictions against gold, for one file, several runs or a suite."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from refbench.cli.declared import DeclaredCommand, options_listing, task_owners
from refbench.core.commands import (
    CONTEXT,
    COUNT,
    DATA,
    OUT_FILE,
    SEED,
    print_json,
    transactional,
)
from refbench.core.help_text import FilledOption, examples


def _prediction_formats() -> str:
    from refbench.cli.ls import listed

    return listed("prediction-formats")


def _fills() -> dict[str, Callable[[], str]]:
    from refbench.cli.ls import folder_tasks, task_list, task_summaries

    return {"tasks": task_list, "task_summaries": task_summaries,
            "prediction_formats": _prediction_formats, "folder_tasks": folder_tasks,
            "task_options": lambda: options_listing(task_owners(scorer=True)),
            "figure_tasks": lambda: _figure_list()}


EXAMPLE = (
    examples(
        "refbench evaluate --task kitmus --gold kitmus-suite --pred runs/km --out "
        "suite-results.json  # runs/km: refbench run --help",
        "refbench evaluate --task kitmus --gold "
        "../shared/data/kitmus-official/released/background-train/subtask_2_ents/"
        "full-text/test.v4_gold_conll.gz "
        "--pred "
        "../shared/data/kitmus-official/predictions/"
        "c2f-run1.background-train.subtask_2_ents.test.jsonlines.gz",
        "refbench run --model first --data kitmus-suite --out runs/first",
        "refbench evaluate --task kitmus --gold kitmus-suite --pred runs/km runs/first --system "
        "KNOWLEDGE-MATCH --system FIRST --ci",
        "refbench run --model first --data ../shared/data/gap/gap-test.tsv --out "
        "runs/gap",
        "refbench evaluate --task gap --gold ../shared/data/gap/gap-test.tsv --pred "
        "runs/gap --out gap.json",
        "refbench run --model first --data ../shared/data/winograd/wsc273.jsonl --out "
        "runs/wsc",
        "refbench evaluate --task winograd --gold ../shared/data/winograd/wsc273.jsonl "
        "--pred runs/wsc --json")
)


@click.command(cls=DeclaredCommand, declared={"task": task_owners(scorer=True)}, fills=_fills(),
               context_settings=CONTEXT, epilog=EXAMPLE)
@click.option("--task", required=True, cls=FilledOption, fills=_fills(),
              help="{tasks} (refbench ls tasks; NAME.vN: that version only).")
@click.option("--gold", type=DATA, required=True, cls=FilledOption, fills=_fills(),
              help="Gold file, or a folder a task takes whole ({folder_tasks}: a KITMUS "
                   "suite, a release folder).")
@click.option("--pred", type=DATA, required=True, multiple=True,
              help="Prediction file or refbench run folder; more may follow (runs of one "
                   "system). In suite mode, one folder per system.")
@click.argument("more", nargs=-1, type=DATA)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (fractions).")
@click.option("--out", type=OUT_FILE, default=None,
              help="Write the result JSON with provenance (input of refbench report).")
@click.option("--system", "systems", multiple=True,
              help="System name in tables; in suite mode one per --pred folder, in order.")
@click.option("--split", default="test", show_default=True, help="Split scored in suite mode.")
@click.option("--bootstrap", type=COUNT, default=1000, show_default=True,
              help="Bootstrap resamples for the 95% intervals (0: none).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Bootstrap seed.")
@click.option("--task-arg", multiple=True, metavar="KEY=VALUE", cls=FilledOption, fills=_fills(),
              help="An option of the task's reader (how the predictions' data was read; "
                   "default: the run's) or scorer (repeatable): {task_options}.")
@click.option("--plot", type=OUT_FILE, default=None, cls=FilledOption, fills=_fills(),
              help="Draw the task's figure of one result (PNG): {figure_tasks}.")
@click.option("--ci", is_flag=True, help="Suite mode: show 95% intervals in the table.")
@click.option("--skip-invalid", is_flag=True,
              help="Skip malformed gold instances (reported as a count and ids) instead of "
                   "stopping.")
@click.option("--allow-missing", is_flag=True,
              help="Suite mode: score a system folder that lacks some subtasks' predictions "
                   "(a warning names them) instead of stopping.")
@transactional
def evaluate(task: str, gold: Path, pred: tuple[Path, ...], more: tuple[Path, ...],
             as_json: bool, out: Path | None, systems: tuple[str, ...], split: str,
             bootstrap: int, seed: int, task_arg: tuple[str, ...], plot: Path | None,
             ci: bool, skip_invalid: bool, allow_missing: bool) -> None:
    """Score predictions of any registered task: what refbench run writes (a run folder, its
    predictions.jsonl, the run folder of a whole suite or release folder) or a task's own
    prediction formats ({prediction_formats}: refbench ls prediction-formats). Choice tasks get
    accuracy with its seeded 95% interval and slices; missing predictions count as wrong and are
    reported. A malformed gold instance stops with an error naming it, unless --skip-invalid.

    What each task scores (its card's summary; refbench ls tasks):

    {task_summaries}
    """
    from refbench.cli.declared import checked, given
    from refbench.core.errors import UsageError
    from refbench.public.scoring import scores
    from refbench.releases.cache import reference_of
    from refbench.reporting.text import result_text
    from refbench.tasks.lookup import get_task

    the_task = get_task(task)
    figure = the_task.report.result_figure if the_task.report else ""
    if plot is not None and not figure:
        drawn = ", ".join(f"{t.title} {t.report.result_figure}" for t in _figure_tasks())
        raise UsageError(f"--plot draws a task's figure of one result ({drawn}); for "
                         f"{the_task.name} use refbench evaluate --out R.json, then refbench "
                         "report R.json --plot")
    options = checked(given("task", task_arg),
                      lambda one: the_task.check_options(one, scorer=True))
    preds = [*pred, *more]
    result = scores(the_task, gold, preds, systems=systems, split=split, bootstrap=bootstrap,
                    seed=seed, task_options=options, skip_invalid=skip_invalid,
                    allow_missing=allow_missing, name_of=reference_of)
    if plot is not None and the_task.report is not None:
        the_task.report.plot_result(result, plot,
                                    title=f"{result['system']} on {Path(str(gold)).name}")
        click.echo(f"plot: {plot}", err=True)
    if out is not None:
        _write_result(result, out, gold=gold, preds=preds)
    for w in result.get("warnings", []):
        click.secho(f"WARNING: {w}", err=True, fg="yellow", bold=True)
    if as_json:
        print_json(result)
    else:
        click.echo(result_text(result, ci=ci))


def _write_result(result: dict[str, Any], out: Path, *, gold: Path, preds: list[Path]) -> None:
    from refbench.core.io import json_text, write_text_atomic
    from refbench.core.provenance import provenance

    inputs = {"gold": [str(gold)] if gold.is_file() else [],
              "pred": [str(p) for p in preds if p.is_file()]}
    from refbench.core.result import SCHEMA_VERSION

    result["provenance"] = provenance(inputs)
    if "n" in result:  # a Result's serialisation (schema 2: coverage recorded)
        result["schema"] = SCHEMA_VERSION
    write_text_atomic(out, json_text(result, indent=2) + "\n")


def _figure_list() -> str:
    from refbench.core.help_text import or_list

    return or_list(f"{t.name}: {t.report.result_figure}" for t in _figure_tasks()
                   if t.report is not None)


def _figure_tasks() -> list[Any]:
    """The tasks that draw a figure of one result (``--plot``)."""
    from refbench.tasks.lookup import tasks_with

    return [t for t in tasks_with("report") if t.report and t.report.result_figure]
