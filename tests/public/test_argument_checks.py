"""Issue 50, point 6: the Python API checks its arguments at the boundary. A wrong type or
range is one ``RefbenchError`` (an ``ArgumentError``, also a ``TypeError``) naming the
argument and what was expected; on main these leaked ``TypeError``/``AttributeError``
tracebacks from deep inside (``load(123)``, ``compare(result)``, ``report(123)``, ...)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

WSC_TINY = ROOT / "tests" / "fixtures" / "winograd" / "wsc-tiny.jsonl"


def _functions() -> list[str]:
    import refbench

    return sorted(n for n in refbench.__all__ if inspect.isfunction(getattr(refbench, n)))


#: the issue's cases, and each public function's first argument of a wrong type
CASES: list[tuple[str, tuple[Any, ...], dict[str, Any], str]] = [
    ("load", (123,), {}, "name_or_path"),
    ("load", (None,), {}, "name_or_path"),
    ("load", ("",), {}, "name_or_path"),
    ("load", (str(WSC_TINY),), {"split": 3}, "split"),
    ("run", (123, str(WSC_TINY)), {}, "model"),
    ("run", ("first", None), {}, "data"),
    ("run", ("first", [str(WSC_TINY), 7]), {}, "data"),
    ("run", ("first", str(WSC_TINY)), {"limit": "5"}, "limit"),
    ("run", ("first", str(WSC_TINY)), {"out": 5}, "out"),
    ("evaluate", (123, str(WSC_TINY)), {}, "predictions"),
    ("evaluate", (str(WSC_TINY), None), {}, "gold"),
    ("evaluate", (str(WSC_TINY), str(WSC_TINY)), {"task": 5}, "task"),
    ("compare", (object(),), {}, "results"),
    ("compare", ("not a list",), {}, "results"),
    ("report", (123,), {}, "results"),
    ("report", (None,), {}, "results"),
    ("report", (str(WSC_TINY),), {"format": 5}, "format"),
]


@pytest.mark.parametrize(("function", "args", "kwargs", "argument"), CASES)
def test_wrong_arguments_are_one_refbench_error(function: str, args: tuple[Any, ...],
                                                kwargs: dict[str, Any], argument: str) -> None:
    import refbench
    from refbench.public.checks import ArgumentError

    with pytest.raises(refbench.RefbenchError) as info:
        getattr(refbench, function)(*args, **kwargs)
    assert isinstance(info.value, ArgumentError) and isinstance(info.value, TypeError)
    assert f"refbench.{function}: {argument}=" in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("function", _functions())
@pytest.mark.parametrize("wrong", [123, None, 4.5, b"bytes", object()])
def test_every_public_function_refuses_a_wrong_first_argument(function: str,
                                                              wrong: Any) -> None:
    """Every function of ``refbench.__all__``, fed wrong types: a RefbenchError, never a
    raw exception (a function, for run's model, is a model: not fed here)."""
    import refbench

    fn = getattr(refbench, function)
    required = [p for p in inspect.signature(fn).parameters.values()
                if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty]
    rest = [str(WSC_TINY)] * (len(required) - 1)
    with pytest.raises(refbench.RefbenchError):
        fn(wrong, *rest)


def test_compare_refuses_resamples_zero(tmp_path: Path) -> None:
    import refbench

    a = refbench.run("first", str(WSC_TINY), store=None, progress=False)
    b = refbench.run("last", str(WSC_TINY), store=None, progress=False)
    with pytest.raises(refbench.RefbenchError, match="resamples=0"):
        refbench.compare([a, b], resamples=0)
    with pytest.raises(refbench.RefbenchError, match="results="):
        refbench.compare(a)
    assert refbench.compare([a, b], resamples=50).pairs


def test_run_still_takes_a_function_as_its_model() -> None:
    """Issue 51 makes ``run`` take functions and ChoiceModels: the check lets them by."""
    from refbench.public.checks import check_model

    check_model("run", lambda instances: [0 for _ in instances])
    check_model("run", "first")
