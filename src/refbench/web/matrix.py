"""Compare's matrix for tasks whose instances form a grid of subtasks (KITMUS: variant x
number of entities, the two facets its web view names in
:attr:`refbench.tasks.capabilities.WebView.compare_matrix`): both systems' accuracy in every
cell and McNemar's exact test (:func:`refbench.metrics.binomial.mcnemar_exact_p`) on the cell's
paired instances, so a difference that holds overall can be traced to the subtasks where it
comes from (or does not)."""

from __future__ import annotations

import sqlite3
from typing import Any

from refbench.metrics.binomial import mcnemar_exact_p


def _natural(value: str) -> tuple[int, int | str]:
    return (0, int(value)) if value.isdigit() else (1, value)


def compare_matrix(db: sqlite3.Connection, rows: str, cols: str, a: str, b: str
                   ) -> dict[str, Any] | None:
    """Per (row value, column value): n paired instances with gold, each system's accuracy,
    the discordant counts and McNemar's exact p (statsmodels). None without paired instances."""
    found = db.execute(
        f"SELECT i.f_{rows}, i.f_{cols}, count(*), sum(x.correct), sum(y.correct), "
        "sum(x.correct = 1 AND y.correct = 0), sum(x.correct = 0 AND y.correct = 1) "
        "FROM preds x JOIN preds y ON x.n = y.n JOIN items i ON i.n = x.n "
        "WHERE x.sys = ? AND y.sys = ? AND x.correct IS NOT NULL AND y.correct IS NOT NULL "
        f"GROUP BY i.f_{rows}, i.f_{cols}", (a, b)).fetchall()
    if not found:
        return None
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    for r, c, n, right_a, right_b, only_a, only_b in found:
        p = mcnemar_exact_p(int(only_a), int(only_b))
        cells[(str(r), str(c))] = {"n": int(n), "acc_a": right_a / n, "acc_b": right_b / n,
                                   "only_a": int(only_a), "only_b": int(only_b), "p": p,
                                   "row": str(r), "col": str(c)}
    row_values = sorted({r for r, _ in cells}, key=_natural)
    col_values = sorted({c for _, c in cells}, key=_natural)
    return {"rows": row_values, "cols": col_values, "cells": cells, "row_name": rows,
            "col_name": cols}
