"""``cli/`` is generic: it defines no benchmark's or trainer's option and branches on no model,
trainer or task name (issue 40). Read from the code itself with ``ast``: no string constant in
``cli/`` equals a registered model, trainer or task name (no ``if name == "llm-loglik"``, no
``default="cross-encoder"``, no table keyed by trainer), and no option ``cli/`` defines is a
flag a task or trainer declares (``--input``), or a task's option (``--switched-pred``): those
are built from the declarations (``cli/declared.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

CLI = ROOT / "src" / "refbench" / "cli"


def _registered_names() -> set[str]:
    from refbench.core.registry import MODELS, TASKS, TRAINERS

    return {n for reg in (MODELS, TASKS, TRAINERS) for n in (*reg.names(), *reg.aliases())}


def _declared_flags() -> set[str]:
    from refbench.core.registry import TRAINERS
    from refbench.core.trainer import trainer_class
    from refbench.tasks.lookup import all_tasks

    flags = set()
    for task in all_tasks():
        for option in task.options(scorer=True):
            flags |= {*option.flags, "--" + option.name.replace("_", "-")}
    for name in TRAINERS.names():
        flags |= {f for o in trainer_class(name).OPTIONS for f in o.flags}
    return flags


def _constants(tree: ast.AST) -> list[tuple[int, str]]:
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _option_flags(tree: ast.AST) -> list[tuple[int, str]]:
    """The flags of every ``click.option(...)`` call."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "option":
            found += [(a.lineno, a.value) for a in node.args
                      if isinstance(a, ast.Constant) and isinstance(a.value, str)
                      and a.value.startswith("-")]
    return found


def test_cli_names_no_model_trainer_or_task() -> None:
    names = _registered_names()
    assert {"cross-encoder", "llm-loglik", "tne", "altentities"} <= names
    found = [f"{path.name}:{line}: {text!r}" for path in sorted(CLI.glob("*.py"))
             for line, text in _constants(ast.parse(path.read_text(encoding="utf-8")))
             if text in names]
    assert not found, "\n".join(found)


def test_cli_defines_no_option_a_task_or_trainer_declares() -> None:
    flags = _declared_flags()
    assert {"--input", "--max-words", "--switched-pred", "--epochs", "--head"} <= flags
    found = [f"{path.name}:{line}: {flag}" for path in sorted(CLI.glob("*.py"))
             for line, flag in _option_flags(ast.parse(path.read_text(encoding="utf-8")))
             if flag in flags]
    assert not found, "\n".join(found)


def test_the_checks_find_what_they_look_for(tmp_path: Path) -> None:
    """The two readers above see a name comparison and a task's flag (so they can fail)."""
    tree = ast.parse('if name == "llm-loglik":\n    pass\n'
                     '@click.option("--input", "input_type")\ndef f(): pass\n')
    assert (1, "llm-loglik") in _constants(tree)
    assert _option_flags(tree) == [(3, "--input")]


def test_the_train_command_takes_few_parameters() -> None:
    """28 parameters before trainers declared their options (13 now); the rest are built
    from the declarations."""
    import inspect

    from refbench.cli.train import train_cmd

    assert train_cmd.callback is not None
    assert len(inspect.signature(train_cmd.callback).parameters) <= 13
