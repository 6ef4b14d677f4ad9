"""The Python API's arguments, checked at the boundary: a wrong type or range is one
:class:`ArgumentError` naming the argument and what was expected, never a raw ``TypeError``
or ``AttributeError`` from deep inside the library. Each public function calls these first.

:class:`ArgumentError` is a :class:`~refbench.core.errors.UsageError` (a ``RefbenchError``,
exit code 2 on the command line) and a ``TypeError``, so code that already catches either
keeps working. :func:`warn_all` turns the lines the command line prints as ``WARNING:`` into
Python warnings (:class:`~refbench.core.errors.RefbenchWarning`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from refbench.core.errors import RefbenchWarning, UsageError

__all__ = ["ArgumentError", "check_count", "check_data", "check_model", "check_one_of",
           "check_results", "check_text", "compare_args", "evaluate_args", "load_args",
           "report_args", "results_args", "run_args", "warn_all"]


class ArgumentError(UsageError, TypeError):
    """A public function was called with an argument of the wrong type or out of range."""

    def __init__(self, function: str, argument: str, expected: str, value: Any) -> None:
        shown = repr(value)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        super().__init__(f"refbench.{function}: {argument}={shown} ({type(value).__name__}): "
                         f"expected {expected}")


def _is_path(value: Any) -> bool:
    return isinstance(value, str | os.PathLike)


def check_data(function: str, argument: str, value: Any, *, several: bool = False) -> None:
    """A release name or a path (``several``: or a non-empty list of them), not empty."""
    if _is_path(value):
        if not str(os.fspath(value)).strip():
            raise ArgumentError(function, argument, "a release name or a path, not empty",
                                value)
        return
    if several and isinstance(value, list | tuple) and value \
            and all(_is_path(v) and str(os.fspath(v)).strip() for v in value):
        return
    what = "a release name or a path" + (" (or a list of them)" if several else "")
    raise ArgumentError(function, argument, what, value)


def check_model(function: str, value: Any) -> None:
    """A model spec (``"first"``), a ``ChoiceModel`` or a function; nothing else."""
    from refbench.models.base import ChoiceModel

    if isinstance(value, str):
        if not value.strip():
            raise ArgumentError(function, "model", "a model spec such as 'first' "
                                "(refbench ls models), not empty", value)
        return
    if isinstance(value, ChoiceModel) or callable(value):
        return
    raise ArgumentError(function, "model", "a model spec such as 'first' (refbench ls "
                        "models), a ChoiceModel or a function", value)


def check_text(function: str, argument: str, value: Any, *, optional: bool = True) -> None:
    """A string (or None when ``optional``)."""
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise ArgumentError(function, argument, "a string" + (" or None" if optional else ""),
                            value)


def check_count(function: str, argument: str, value: Any, *, minimum: int = 1,
                optional: bool = True) -> None:
    """A whole number of at least ``minimum`` (or None when ``optional``)."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ArgumentError(function, argument, f"a whole number >= {minimum}"
                            + (" or None" if optional else ""), value)


def check_one_of(function: str, argument: str, value: Any, kinds: tuple[type, ...],
                 expected: str) -> None:
    """``value`` is an instance of one of ``kinds``."""
    if not isinstance(value, kinds):
        raise ArgumentError(function, argument, expected, value)


def check_results(function: str, value: Any, kinds: tuple[type, ...], expected: str, *,
                  single: bool) -> None:
    """A list or tuple of ``kinds`` (``single``: or one of them alone)."""
    if single and isinstance(value, kinds):
        return
    if isinstance(value, list | tuple) and all(isinstance(v, kinds) for v in value):
        return
    raise ArgumentError(function, "results", expected, value)


def warn_all(lines: Iterable[Any]) -> None:
    """Each ``WARNING:`` line of a result as a Python warning."""
    for line in lines:
        warnings.warn(str(line), RefbenchWarning, stacklevel=3)


# -- one call at the top of each public function -----------------------------------------

def load_args(name_or_path: Any, split: Any, task: Any) -> None:
    check_data("load", "name_or_path", name_or_path)
    check_text("load", "split", split)
    check_text("load", "task", task)


def run_args(model: Any, data: Any, *, limit: Any, system: Any, out: Any, task: Any,
             split: Any, task_args: Any = None) -> None:
    check_model("run", model)
    check_data("run", "data", data, several=True)
    check_count("run", "limit", limit)
    check_text("run", "system", system)
    if out is not None and not _is_path(out):
        raise ArgumentError("run", "out", "a folder path or None", out)
    check_text("run", "task", task)
    check_text("run", "split", split)
    if task_args is not None and not (isinstance(task_args, Mapping)
                                      and all(isinstance(k, str) for k in task_args)):
        raise ArgumentError("run", "task_args", "a mapping of option names to values "
                            "(e.g. {'ablate': 'entity'}) or None", task_args)


def evaluate_args(predictions: Any, gold: Any, *, task: Any, split: Any) -> None:
    from refbench.core.result import Result
    from refbench.tasks.base import Task

    # a Result of refbench.run (the public one keeps out_dir; read from the core type, so
    # that this module imports nothing of refbench.public)
    if not (_is_path(predictions) or (isinstance(predictions, Result)
                                      and hasattr(predictions, "out_dir"))):
        raise ArgumentError("evaluate", "predictions", "a run folder or prediction file "
                            "(a path), or a Result of refbench.run", predictions)
    check_data("evaluate", "gold", gold)
    if not (task is None or isinstance(task, str | Task)):
        raise ArgumentError("evaluate", "task", "a task name or None", task)
    check_text("evaluate", "split", split)


def compare_args(results: Any, *, resamples: Any, seed: Any) -> None:
    from refbench.core.result import Result

    check_results("compare", results, (Result,), "a list of two or more Results "
                  "(refbench.run, refbench.evaluate)", single=False)
    check_count("compare", "resamples", resamples)
    check_count("compare", "seed", seed, minimum=0)


def results_args(function: str, results: Any) -> None:
    """What ``refbench.report`` and ``refbench.card`` take: a Result, a path, or a non-empty
    list of them."""
    from refbench.core.result import Result

    kinds = (Result, str, os.PathLike)
    check_results(function, results, kinds, "a Result, a run folder or result file (a path), "
                  "or a list of them", single=True)
    if isinstance(results, list | tuple) and not results:
        raise ArgumentError(function, "results", "at least one Result or path", results)


def report_args(results: Any, format: Any, metric: Any) -> None:
    check_text("report", "format", format, optional=False)
    if format not in ("markdown", "md", "latex", "html", "csv"):
        raise ArgumentError("report", "format", "markdown, latex, html or csv", format)
    results_args("report", results)
    check_text("report", "metric", metric)
