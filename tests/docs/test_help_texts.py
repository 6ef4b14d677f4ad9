"""Help texts say what the code does today. A help text that lists tasks lists every registered
task, a plugin's included, because it builds the list from the registry when it is shown; and
no help text shows a Click escape as written (``95%%``: Click does not %-format help)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from refbench.core.help_text import _HEADER
from tests.docs.help_tree import command_paths, help_text


def _units(text: str) -> list[str]:
    """The parts of a help text that each say one thing: every paragraph of the description and
    every option's help. Left out: the usage line, the listing of a group's commands (their own
    short helps) and the examples (paths such as ../shared/data/gap/)."""
    units: list[list[str]] = [[]]
    section = "description"
    for line in text.splitlines()[1:]:
        stripped = line.strip()
        if stripped in ("Options:", "Commands:", "Arguments:") or _HEADER.match(line):
            section = stripped
            units.append([])
        elif section == "description":
            if stripped:
                units[-1].append(stripped)
            else:
                units.append([])
        elif section == "Options:":
            if line.startswith("  -") or line.startswith("  --"):
                units.append([])
            units[-1].append(stripped)
    return [" ".join(unit) for unit in units if unit]


def _named(text: str, names: list[str]) -> set[str]:
    """The task names ``text`` mentions as words (``KITMUS``, ``TNE's``; not ``knowref_test``,
    ``docs/tne-baselines.md`` or ``KITMUS-style``)."""
    return {n for n in names
            if re.search(rf"(?<![\w/.-]){re.escape(n)}(?![\w/-])", text, re.IGNORECASE)}


def _task_lists() -> Iterator[tuple[str, set[str]]]:
    """Each part of a help text that names at least three tasks, with the tasks it names."""
    from refbench.tasks.lookup import task_names

    names = task_names()
    for path, _ in command_paths():
        for unit in _units(help_text(path)):
            if unit.startswith("--task-arg"):
                continue  # the tasks that declare options (options_listing, from the registry)
            named = _named(unit, names)
            if len(named) >= 3:
                yield " ".join(("refbench", *path)), named


def _check_task_lists() -> list[str]:
    """Every list of tasks names all of them, or exactly those with one capability (the tasks
    that take a folder whole): the lists checked."""
    from refbench.tasks.base import CAPABILITIES
    from refbench.tasks.lookup import task_names, tasks_with

    every = set(task_names())
    subsets = [{t.name for t in tasks_with(c)} for c in CAPABILITIES]
    checked = []
    for command, named in _task_lists():
        assert named == every or named in subsets, (
            f"`{command} --help` lists the tasks {sorted(named)}, not every registered task "
            f"(missing {sorted(every - named)}): build the list from the registry")
        checked.append(command)
    return checked


def test_help_texts_that_list_tasks_list_every_task() -> None:
    checked = _check_task_lists()
    assert "refbench evaluate" in checked  # the rule is not empty


def test_a_plugin_task_appears_in_every_list_of_tasks(plugins_installed: None) -> None:
    from refbench.tasks.lookup import task_names

    assert "plugref" in task_names()
    checked = _check_task_lists()
    assert "refbench evaluate" in checked
    assert re.search(r"\bplugref\b", help_text(("evaluate",)))


def test_no_help_text_shows_a_click_escape() -> None:
    for path, _ in command_paths():
        text = help_text(path)
        assert "%%" not in text, f"`refbench {' '.join(path)} --help` shows '%%'"
