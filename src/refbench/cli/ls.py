"""``refbench ls``: what is registered, and where each entry comes from (refbench itself, or
the installed distribution whose entry point adds it)."""

from __future__ import annotations

from typing import Any

import click

from refbench.core.commands import CONTEXT, print_json
from refbench.core.help_text import FilledCommand, examples, or_list
from refbench.core.options import Option
from refbench.core.registry import ALL, BUILTIN, Registry


def listings() -> dict[str, list[Registry]]:
    """Every listing ``ls`` shows, by name: refbench's own tables, then what the tasks add
    (their listings capability; listings of one name are shown as one)."""
    from refbench.tasks.lookup import tasks_with

    out: dict[str, list[Registry]] = {name: [reg] for name, reg in ALL.items()}
    for task in tasks_with("listings"):
        assert task.listings is not None
        for name in task.listings.targets:
            out.setdefault(name, []).append(task.listings.load(name))
    return out


def _rows(name: str, regs: list[Registry]) -> list[dict[str, Any]]:
    """One row per entry: its name (tasks and models with their version), summary, origin."""
    from refbench.core.errors import RefbenchError

    rows = []
    for reg in regs:
        for e in reg.entries():
            row: dict[str, Any] = {"name": e.name, "summary": e.summary, "origin": e.origin}
            if name in ("tasks", "models", "trainers"):
                try:
                    obj = reg.load(e.name)
                except RefbenchError as exc:  # a broken plugin: listed with its error
                    row["error"] = exc.message
                else:
                    row["version"] = getattr(obj, "version", 1)
                    # a task's card is the one source of its summary
                    row["summary"] = str(getattr(obj, "summary", "") or "") or row["summary"]
                    # a model's or trainer's --model-arg / --train-arg keys and defaults
                    declared = getattr(obj, "OPTIONS", ()) if name != "tasks" else ()
                    options = {o.name: o.default for o in declared if isinstance(o, Option)} \
                        if isinstance(declared, tuple | list) else {}
                    if options:
                        row["options"] = options
            rows.append(row)
        for entry in reg.shadowed:
            rows.append({"name": entry.name, "summary": "", "origin": entry.origin,
                         "error": entry.broken(f"refbench already has {entry.name!r}")})
    return rows


def _options_line(options: dict[str, Any]) -> str:
    """A model's or trainer's options with their defaults as ``--model-arg`` takes them,
    indented under its row (``-``: no default)."""
    import textwrap

    def value(v: Any) -> str:
        return "-" if v is None else str(v).lower() if isinstance(v, bool) else str(v) or '""'

    shown = ", ".join(f"{k}={value(v)}" for k, v in options.items())
    return textwrap.fill(shown, width=100, initial_indent="      options: ",
                         subsequent_indent=" " * 15, break_on_hyphens=False)


# -- what help texts list, computed when they are shown (FilledOption, FilledCommand) -----------


def task_list() -> str:
    """Every registered task: ``kitmus, gap, ... or winobias`` (plugins' included)."""
    from refbench.tasks.lookup import task_names

    return or_list(task_names())


def tasks_having(capability: str) -> str:
    """The tasks that have ``capability`` (``folder``: those that take a folder whole)."""
    from refbench.tasks.lookup import tasks_with

    return or_list([t.name for t in tasks_with(capability)])


def folder_tasks() -> str:
    """The tasks that take a folder whole (a KITMUS suite, a release folder)."""
    return tasks_having("folder")


#: The ``{folder_tasks}`` of a help text (:class:`~refbench.core.help_text.FilledOption`).
FOLDER_FILLS = {"folder_tasks": folder_tasks}


def task_summaries() -> str:
    """One line per registered task, its name and its card's summary, as a paragraph Click
    prints as written."""
    import textwrap

    from refbench.tasks.lookup import all_tasks

    lines = ["\b"]
    for task in all_tasks():
        summary = task.summary.removeprefix(f"{task.title}: ") or task.title
        lines.extend(textwrap.wrap(summary, width=92, initial_indent=f"{task.name:12s} ",
                                   subsequent_indent=" " * 13))
    return "\n".join(lines)


def listed(kind: str) -> str:
    """The names of one listing of ``refbench ls`` (``prediction-formats``, ``formats``)."""
    return or_list([e.name for reg in listings().get(kind, []) for e in reg.entries()])


def kinds() -> str:
    """What ``refbench ls KIND`` takes."""
    return or_list(listings())


@click.command("ls", cls=FilledCommand, fills={"kinds": kinds}, context_settings=CONTEXT,
               epilog=examples("refbench ls", "refbench ls variants", "refbench ls tasks --json"))
@click.argument("kind", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def ls(kind: str | None, as_json: bool) -> None:
    """List what is registered: tasks, models and trainers (with their versions, their
    options' defaults and, for plugins, the distribution that adds them), prediction formats,
    and what the tasks add (metrics, KITMUS variants, formats and resource layouts). KIND
    limits the listing to one of them: {kinds}."""
    from refbench.core.errors import UsageError

    found = listings()
    if kind is not None and kind not in found:
        raise UsageError(f"unknown registry {kind!r}; choose from {', '.join(found)}")
    chosen = {kind: found[kind]} if kind else found
    if as_json:
        print_json({k: _rows(k, regs) for k, regs in chosen.items()})
        return
    for k, regs in chosen.items():
        click.echo(f"{k}:")
        for row in _rows(k, regs):
            name = f"{row['name']}.v{row['version']}" if "version" in row else row["name"]
            origin = "" if row["origin"] == BUILTIN or "error" in row \
                else f"  [from {row['origin']}]"
            text = f"error: {row['error']}" if "error" in row else row["summary"]
            click.echo(f"  {name:42s} {text}{origin}")
            if row.get("options"):
                click.echo(_options_line(row["options"]))
        for reg in regs:
            for alias, target in reg.aliases().items():
                click.echo(f"  {alias:42s} alias of {target}")
