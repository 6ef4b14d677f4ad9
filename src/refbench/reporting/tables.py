"""The shared per-data-set table: one row per result (naming the model, the data and the split)
and the task's headline figures (:attr:`refbench.tasks.base.Task.headline_metrics`). A task
with a layout of its own (KITMUS: variants x entities) builds it in
:meth:`~refbench.tasks.capabilities.Report.tables`.

Inputs are result dicts as :mod:`refbench.reporting.results` loads them. Figures are fractions in
[0, 1]; intervals are the 95% bootstrap intervals the scorers computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.table import Table, interval_of, metric_label
from refbench.reporting.render import FORMATS, render_tables
from refbench.tasks.lookup import find_task
from refbench.tasks.result_text import data_label

__all__ = ["FORMATS", "generic_table", "generic_tables", "render"]

def headline(task: str) -> tuple[str, ...]:
    """The result keys a task's per-data-set table shows (``accuracy`` for unknown tasks)."""
    found = find_task(task)
    return found.headline_metrics if found else ("accuracy",)


def task_title(task: str) -> str:
    found = find_task(task)
    return found.title if found else task


def generic_tables(results: Sequence[dict[str, Any]], *, metric: str | None = None,
                   ci: bool = False) -> list[Table]:
    """One table per task, one row per result: system, data, split, n and the task's
    headline figures (or only ``metric``)."""
    tasks = list(dict.fromkeys(str(r.get("task")) for r in results))
    tables = [generic_table([r for r in results if str(r.get("task")) == t], metric=metric,
                            ci=ci, strict=False) for t in tasks]
    tables = [t for t in tables if t.header[t.header.index("n") + 1:]]
    if metric and not tables:
        raise UsageError(f"no result has the metric {metric!r}")
    return tables


def generic_table(results: Sequence[dict[str, Any]], *, metric: str | None = None,
                  ci: bool = False, strict: bool = True) -> Table:
    """One row per result (of one task): system, data, split, n and headline figures."""
    keys: list[str] = []
    for r in results:
        wanted = [metric] if metric else list(headline(str(r.get("task"))))
        keys += [k for k in wanted if k not in keys and r.get(k) is not None]
    if metric and not keys and strict:
        raise UsageError(f"no result has the metric {metric!r}")
    tasks = list(dict.fromkeys(str(r.get("task")) for r in results))
    rows, tidy = [], []
    # the model spec gets a column of its own where a system was given another name
    show_model = any(r.get("model") and r.get("system") and r["model"] != r["system"]
                     for r in results)
    for r in results:
        system = str(r.get("system") or r.get("model") or Path(str(r.get("_path", "?"))).stem)
        data = r.get("data") or r.get("gold")
        # n: the instances the figures are over (GAP: those with gold, not every row)
        n = r.get("n_with_gold", r.get("n", r.get("n_documents")))
        row = [system, *([str(r.get("model") or "-")] if show_model else []), data_label(data),
               str(r.get("split") or "-"), str(n or "-")]
        for k in keys:
            v = r.get(k)
            interval = interval_of(r.get("ci95"), k)
            text = "-" if not isinstance(v, int | float) else f"{v:.3f}"
            if ci and interval and isinstance(v, int | float):
                text += f" [{interval[0]:.3f}, {interval[1]:.3f}]"
            row.append(text)
            if isinstance(v, int | float):
                tidy.append({"task": r.get("task"), "system": system, "model": r.get("model"),
                             "kind": "system",
                             "data": data, "split": r.get("split"), "metric": k,
                             "value": float(v), "n": n,
                             "ci_low": interval[0] if interval else None,
                             "ci_high": interval[1] if interval else None})
        rows.append(row)
    notes = ["Figures are fractions" + (" (bias: F1 feminine / F1 masculine)."
                                        if "bias" in keys else ".")]
    if any(r.get("n_with_gold") not in (None, r.get("n")) for r in results):
        notes.append("n: the instances with a gold answer, which the figures are over.")
    for t in tasks:
        found = find_task(t)
        notes += list(found.report.table_notes) if found and found.report else []
    if ci and any("[" in cell for row in rows for cell in row):
        notes.append("[low, high]: 95% bootstrap interval over instances.")
    name = " / ".join(task_title(t) for t in tasks)
    return Table(title=f"{name} results", header=["System", *(["Model"] if show_model else []),
                                                  "Data", "Split", "n",
                                                  *(metric_label(k) for k in keys)],
                 rows=rows, notes=notes, tidy=tidy,
                 label=f"tab:{'-'.join(tasks)}-results")


def render(header: list[str], rows: list[list[str]], fmt: str, *, title: str = "") -> str:
    """A plain table (one header row) in any format."""
    return render_tables([Table(title=title, header=header, rows=rows)], fmt)
