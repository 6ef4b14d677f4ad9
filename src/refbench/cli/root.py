"""The ``refbench`` Click app: parses arguments and calls library functions, nothing more.

Built on Click; each command module imports its heavy dependencies only when it runs, so
start-up stays short (scoring a file is dominated by reading it, not by imports). refbench's
own commands are the modules of this package; each task adds its own through its commands
capability (``refbench kitmus``, ``refbench tne``, ...), plugin tasks included.
"""

from __future__ import annotations

import click

import refbench.cli.data as data_cli
import refbench.cli.evaluate as evaluate_cli
import refbench.cli.export as export_cli
import refbench.cli.llm as llm_cli
import refbench.cli.report as report_cli
import refbench.cli.results as results_cli
import refbench.cli.run as run_cli
import refbench.cli.serve as serve_cli
import refbench.cli.study as study_cli
import refbench.cli.train as train_cli
from refbench.cli.ls import ls
from refbench.core.commands import CONTEXT, set_release_resolver
from refbench.core.help_text import examples
from refbench.core.version import __version__
from refbench.releases.cache import resolve_reference


class _Commands(click.Group):
    """The ``refbench`` group: refbench's own commands are found without loading any task; the
    tasks' commands (each task's module imported) only when a name is not one of refbench's
    own, or when the whole list is asked for (``--help``, the docs). ``refbench evaluate`` and
    ``refbench report`` so start without importing every task."""

    _tasks_added = False

    @property  # type: ignore[override]
    def commands(self) -> dict[str, click.Command]:
        if not self._tasks_added:
            self._tasks_added = True
            _task_commands(self._own)
            serve_cli.add_demo_options()  # the whole tree, as the docs and --help show it
        return self._own

    @commands.setter
    def commands(self, value: dict[str, click.Command]) -> None:
        self._own = value

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        name = name or cmd.name
        if name is None:
            raise TypeError("Command has no name.")
        self._own[name] = cmd

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = self._own.get(cmd_name) or self.commands.get(cmd_name)
        if command is serve_cli.serve:
            serve_cli.add_demo_options()
        return command


@click.group(cls=_Commands, context_settings=CONTEXT, epilog=examples(
    "refbench ls",
    "refbench kitmus generate --sizes 40  # a small suite in kitmus-suite/ (full sizes: minutes)",
    "refbench run --model knowledge-match --data kitmus-suite --out runs/km",
    "refbench evaluate --task kitmus --gold kitmus-suite --pred runs/km --ci"))
@click.version_option(__version__, prog_name="refbench")
def app() -> None:
    """Knowledge-intensive reference resolution: generate, load, run and score benchmarks."""


app.add_command(ls)
app.add_command(evaluate_cli.evaluate)
app.add_command(export_cli.export)
app.add_command(report_cli.report)
app.add_command(run_cli.run_cmd)
app.add_command(train_cli.train_cmd)
app.add_command(results_cli.results)
app.add_command(study_cli.study)
app.add_command(serve_cli.serve)
app.add_command(data_cli.data)
app.add_command(llm_cli.llm)
set_release_resolver(resolve_reference)  # --data NAME[:SPLIT] in every command


def _task_commands(commands: dict[str, click.Command]) -> None:
    """Every task's own commands (its commands capability), in registry order; a name that is
    already a command is left to the command that has it."""
    from refbench.cli.services import CliServices
    from refbench.tasks.lookup import tasks_with, warn_once

    services = CliServices()
    for task in tasks_with("commands"):
        assert task.commands is not None
        for command in task.commands.build(services):
            if command.name in commands:
                warn_once(f"task {task.name}: command {command.name!r} is taken; not added")
            elif command.name is not None:
                commands[command.name] = command
