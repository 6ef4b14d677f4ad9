"""The capabilities a task may have (:mod:`refbench.tasks.capabilities`): every registered
task's capability attribute is None or an object of the class ``Task`` declares for it, each
such class is documented under its attribute in docs/task-interface.md, and the tasks together
use every capability (one nobody uses is dead code)."""

from __future__ import annotations

import types
import typing

from refbench.tasks import capabilities
from refbench.tasks.base import Task
from refbench.tasks.lookup import all_tasks
from tests.conftest import ROOT


def _declared() -> dict[str, type]:
    """{attribute: capability class} read from ``Task``'s annotations (``X | None = None``)."""
    out = {}
    for name, hint in typing.get_type_hints(Task).items():
        if isinstance(hint, types.UnionType):
            classes = [a for a in typing.get_args(hint) if a is not type(None)]
            if len(classes) == 1 and getattr(capabilities, classes[0].__name__, None) is classes[0]:
                out[name] = classes[0]
    return out


def test_task_declares_its_capabilities() -> None:
    assert set(_declared()) == {"folder", "documents", "web", "report", "export", "commands",
                                "studies", "demo", "coref", "listings", "training"}


def test_every_tasks_capabilities_are_of_the_declared_class() -> None:
    declared = _declared()
    used: set[str] = set()
    for task in all_tasks():
        for name, cls in declared.items():
            value = getattr(task, name)
            assert value is None or isinstance(value, cls), (task.name, name, type(value))
            if value is not None:
                used.add(name)
    assert used == set(declared), f"no built-in task uses {set(declared) - used}"


def test_every_capability_is_documented_under_its_attribute() -> None:
    text = (ROOT / "docs" / "task-interface.md").read_text(encoding="utf-8")
    missing = [f"{name}: {cls.__name__}" for name, cls in _declared().items()
               if f"`{name}: {cls.__name__}`" not in text]
    assert not missing, f"docs/task-interface.md has no section for {missing}"
