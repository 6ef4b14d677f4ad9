"""Figures for papers: headline figures of every task as grouped bars (a task may draw its own
figure instead: its report capability's ``plot``, KITMUS accuracy against entities); the
figure of one result (TNE: preposition confusion) is the task's
:meth:`~refbench.tasks.capabilities.Report.plot_result`.

Every system keeps one colour in every panel, one legend covers all systems and the chance
level, titles name the metric and the split, and error bars are the 95% intervals the scorers
computed (none are drawn where a result has none, and the caption line says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.figures import colours as _colours
from refbench.core.figures import (
    fit_tick_labels,
    fitted_title,
    legend_below,
    new_figure,
    save_figure,
)
from refbench.core.figures import pyplot as _pyplot
from refbench.core.table import interval_of, metric_label
from refbench.reporting.tables import headline, task_title
from refbench.tasks.result_text import data_label

__all__ = ["plot_results", "save_figure"]


def plot_results(results: Sequence[dict[str, Any]], out: str | Path, *,
                 metric: str | None = None) -> None:
    """One panel per task; in each, a group of bars per data set (data, split), one bar per
    system, coloured the same in every panel."""
    plt = _pyplot()
    tasks = list(dict.fromkeys(str(r.get("task")) for r in results))
    systems = list(dict.fromkeys(str(r.get("system") or r.get("model")) for r in results))
    colours = _colours(systems)
    ncols = min(3, len(tasks))
    nrows = (len(tasks) + ncols - 1) // ncols
    fig, axes = new_figure(nrows=nrows, ncols=ncols,
                           figsize=(max(6.0, 4.4 * ncols), 3.4 * nrows + 1.2))
    for ax, task in zip(axes.flat, tasks, strict=False):
        key = metric or headline(task)[0]
        rows = [r for r in results if str(r.get("task")) == task
                and isinstance(r.get(key), int | float)]
        sets = list(dict.fromkeys((data_label(r.get("data") or r.get("gold")),
                                   r.get("split") or "-") for r in rows))
        here = [s for s in systems if any(str(r.get("system") or r.get("model")) == s
                                          for r in rows)]
        width = 0.8 / max(1, len(here))
        for r in rows:
            s = str(r.get("system") or r.get("model"))
            x = sets.index((data_label(r.get("data") or r.get("gold")), r.get("split") or "-")) \
                + (here.index(s) - (len(here) - 1) / 2) * width
            ci = interval_of(r.get("ci95"), key)
            err = [[r[key] - ci[0]], [ci[1] - r[key]]] if ci else None
            ax.bar(x, r[key], width=width * 0.9, color=colours[s], yerr=err, capsize=3)
        ax.set_xticks(range(len(sets)), [f"{d}\n({sp} split)" if sp != "-" else d
                                         for d, sp in sets], fontsize=7)
        fit_tick_labels(fig, ax)
        ax.set_xlim(-0.6, len(sets) - 0.4)
        ax.set_ylabel(metric_label(key))
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{task_title(task)}: {metric_label(key)}", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(tasks):]:
        ax.set_visible(False)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[s]) for s in systems]
    legend_below(fig, handles, systems)
    fitted_title(fig, "Results by data set\nerror bars: 95% bootstrap intervals over "
                      "instances, where recorded")
    save_figure(fig, out, dpi=130)
