"""The ``refbench`` command line: parses arguments and calls library functions, nothing more.

Built on Click; each command module imports its heavy dependencies only when it runs, so
start-up stays short (scoring a file is dominated by reading it, not by imports).
"""

from __future__ import annotations

import sys

import click

from refbench import __version__
from refbench.cli import altentities as altentities_cli
from refbench.cli import convert as convert_cli
from refbench.cli import data as data_cli
from refbench.cli import evaluate as evaluate_cli
from refbench.cli import export as export_cli
from refbench.cli import kitmus as kitmus_cli
from refbench.cli import knowref as knowref_cli
from refbench.cli import llm as llm_cli
from refbench.cli import report as report_cli
from refbench.cli import results as results_cli
from refbench.cli import run as run_cli
from refbench.cli import serve as serve_cli
from refbench.cli import study as study_cli
from refbench.cli import tne as tne_cli
from refbench.cli.common import CONTEXT, run_guarded
from refbench.cli.ls import ls


@click.group(context_settings=CONTEXT, epilog="Examples: refbench ls  |  refbench kitmus "
             "generate --out suite  |  refbench evaluate --task kitmus --gold G --pred P")
@click.version_option(__version__, prog_name="refbench")
def app() -> None:
    """Knowledge-intensive reference resolution: generate, load, run and score benchmarks."""


app.add_command(ls)
app.add_command(kitmus_cli.kitmus)
app.add_command(evaluate_cli.evaluate)
app.add_command(convert_cli.convert_cmd)
app.add_command(export_cli.export)
app.add_command(report_cli.report)
app.add_command(run_cli.run_cmd)
app.add_command(run_cli.train_cmd)
app.add_command(results_cli.results)
app.add_command(export_cli.export)
app.add_command(altentities_cli.altentities)
app.add_command(knowref_cli.knowref)
app.add_command(tne_cli.tne)
app.add_command(study_cli.study)
app.add_command(serve_cli.serve)
app.add_command(data_cli.data)
app.add_command(llm_cli.llm)


def _task_commands() -> None:
    """Task-specific command groups a task folder brings (``Task.cli_group``); the existing
    tasks' groups are the modules above."""
    from refbench.tasks.base import all_tasks

    for task in all_tasks():
        group = task.cli_group()
        if group is not None and group.name not in app.commands:
            app.add_command(group)


_task_commands()


def main() -> None:
    """Console entry point: expected failures print one line and exit 2; Ctrl-C exits 130 and
    SIGTERM 143, each saying what was kept."""
    from refbench.core.interrupt import handle_sigterm

    handle_sigterm()
    sys.exit(run_guarded(app))
