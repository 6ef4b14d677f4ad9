"""Results as a few lines for the terminal, each saying what it prints (fractions, unless a
line says percent) and naming the system, the data and the split."""

from __future__ import annotations

from typing import Any

from refbench.reporting.render import render_tables
from refbench.tasks.lookup import find_task
from refbench.tasks.result_text import choice_text


def table_text(r: dict[str, Any], *, ci: bool = False) -> str | None:
    """A result in its task's own table layout, as Markdown (a KITMUS suite result); None
    when the task has no layout of its own."""
    task = find_task(str(r.get("task")))
    tables = task.report.tables([r], ci=ci) if task is not None and task.report else None
    return render_tables(tables, "md") if tables else None


def result_text(r: dict[str, Any], *, ci: bool = False) -> str:
    """The text ``refbench evaluate`` prints for any task's result: the task's own
    (:meth:`refbench.tasks.capabilities.Report.text`), else its table, else the choice
    summary."""
    task = find_task(str(r.get("task")))
    text = task.report.text(r, ci=ci) if task is not None and task.report else None
    if text is None:
        text = table_text(r, ci=ci)
    return choice_text(r) if text is None else text


def run_text(m: dict[str, Any]) -> str:
    """What ``refbench run`` prints for one data file."""
    lines = [choice_text(m)]
    for key in ("pronoun_accuracy", "antecedent_f1"):
        if m.get(key) is not None:
            lines.append(f"  {key.replace('_', ' ')}: {m[key]:.3f}")
    cache = f"{m['n_cached']} of {m['n']} predictions from the cache"
    if m.get("uncached_batches"):
        cache += f"; {m['uncached_batches']} batches not cached (store busy)"
    lines.append(f"  {cache}")
    if m.get("n_truncated"):
        lines.append(f"  warning: the inputs of {m['n_truncated']} of {m['n']} instances were "
                     f"longer than the model's max_length and lost up to "
                     f"{m['max_truncated_tokens']} tokens from the left")
    where = f"  predictions: {m['predictions']}"
    if m.get("run_id") is not None:
        where += f"; run {m['run_id']} in {m.get('store', 'the results store')}"
    lines.append(where)
    return "\n".join(lines)


def suite_run_text(r: dict[str, Any], *, ci: bool = False) -> str:
    """The table of a folder run (a KITMUS suite) and the task's summary line: where the
    predictions went, run ids (:meth:`refbench.tasks.capabilities.FolderRuns.run_text`)."""
    table = table_text(r, ci=ci) or ""
    task = find_task(str(r["task"]))
    summary = task.folder.run_text(r) if task is not None and task.folder else ""
    return f"{table}\n{summary}"
