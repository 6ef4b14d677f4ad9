"""No interval is made from a count guessed out of a rounded accuracy (issue 49): Wilson's and
Newcombe's intervals take exact counts, recovered from a fraction only when it is exactly
``k / n`` (:func:`refbench.metrics.intervals.exact_count`), and no module recovers a count
with ``round(accuracy * n)`` outside that one function."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import refbench
from refbench.metrics.intervals import exact_count, newcombe, newcombe_difference, wilson, wilson_of

SRC = Path(refbench.__file__).parent
#: Where ``round(a * b)`` may stand: the one checked recovery of a count, and two roundings
#: that make no count of right answers (a progress percentage, a split's size).
ALLOWED = {("metrics/intervals.py", "exact_count"),
           ("web/study/index.py", "summary"),
           ("tasks/kitmus/generate/splits.py", "split_sizes")}


def _rounded_products() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for f in sorted(SRC.rglob("*.py")):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            for node in ast.walk(fn):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id == "round" and len(node.args) == 1
                        and not node.keywords
                        and any(isinstance(b, ast.BinOp) and isinstance(b.op, ast.Mult)
                                for b in ast.walk(node.args[0]))):
                    name = getattr(fn, "name", "<lambda>")
                    found.add((f.relative_to(SRC).as_posix(), name))
    return found


def test_no_count_is_rounded_out_of_a_fraction_elsewhere() -> None:
    assert _rounded_products() == ALLOWED


def test_exact_count_recovers_only_exact_fractions() -> None:
    assert exact_count(1 / 3, 3) == 1 and exact_count(2 / 396, 396) == 2
    assert exact_count(0.3333, 3) is None  # rounded to 4 places: not 1 / 3
    assert exact_count(0.5, 0) is None and exact_count(1.5, 2) is None


def test_wilson_of_a_rounded_accuracy_is_none() -> None:
    assert wilson_of(1 / 3, 3) == wilson(1, 3)
    assert wilson_of(300 / 300, 300) == wilson(300, 300)
    assert wilson_of(0.3333, 3) is None and wilson_of(None, 3) is None
    # 0.253 of 1584 is 400.75 right answers: round() would have made Wilson's of 401
    assert wilson_of(0.253, 1584) is None


def test_newcombe_of_a_rounded_accuracy_is_none() -> None:
    assert newcombe_difference(0.5, 396, 2 / 396, 396) == newcombe(198, 396, 2, 396)
    assert newcombe_difference(0.5, 396, 0.005, 396) is None


def test_winobias_row_gives_no_interval_of_a_rounded_accuracy() -> None:
    from refbench.tasks.winobias.metrics import table_row

    exact = table_row((1 / 3, 3), (3 / 4, 4))["ci95"]
    assert exact["pro"] == pytest.approx(list(wilson(1, 3) or ()))
    assert exact["pro_minus_anti"] == pytest.approx(list(newcombe(1, 3, 3, 4) or ()))
    rounded = table_row((0.333, 3), (3 / 4, 4))["ci95"]
    assert set(rounded) == {"anti"}
