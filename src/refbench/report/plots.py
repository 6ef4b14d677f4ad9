"""Figures for papers: KITMUS accuracy against the number of entities (one panel per variant),
headline figures of other tasks as grouped bars, and the TNE preposition confusion heat-map.

Every system keeps one colour in every panel, one legend covers all systems and the chance
level, titles name the metric and the split, and error bars are the 95% intervals the scorers
computed (none are drawn where a result has none, and the caption line says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.report.tables import (
    CHANCE,
    HEADLINE,
    TASK_TITLES,
    Cell,
    data_label,
    metric_label,
)


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _colours(systems: Sequence[str]) -> dict[str, Any]:
    plt = _pyplot()
    cmap = plt.get_cmap("tab10" if len(systems) <= 10 else "tab20")
    return {s: cmap(i % cmap.N) for i, s in enumerate(systems)}


def plot_entities(cells: list[Cell], random: dict[str, float], out: str | Path, *,
                  metric: str = "pronoun_accuracy", split: str | None = None) -> None:
    from refbench.tasks.kitmus.suite_eval import variant_order

    plt = _pyplot()
    variants = sorted({c.variant for c in cells}, key=lambda v: (variant_order(v), v))
    systems = list(dict.fromkeys(c.system for c in cells))
    colours = _colours(systems)
    ns = sorted({c.n_entities for c in cells})
    ncols = min(4, len(variants))
    nrows = (len(variants) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.4 * ncols, 2.9 * nrows + 0.9),
                             squeeze=False, sharey=True)
    handles: dict[str, Any] = {}
    offsets = {s: (i - (len(systems) - 1) / 2) * 0.06 for i, s in enumerate(systems)}
    for ax, variant in zip(axes.flat, variants, strict=False):
        for system in systems:
            pts = sorted((c.n_entities, c.value, c.ci) for c in cells
                         if c.variant == variant and c.system == system)
            if not pts:
                continue
            xs = [n + offsets[system] for n, _, _ in pts]
            ys = [v for _, v, _ in pts]
            lo = [v - ci[0] if ci else 0.0 for _, v, ci in pts]
            hi = [ci[1] - v if ci else 0.0 for _, v, ci in pts]
            handles[system] = ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", markersize=4,
                                          capsize=3, color=colours[system], label=system)
        rnd = sorted((int(k.split("|")[1]), v) for k, v in random.items()
                     if k.split("|")[0] == variant)
        if rnd:
            handles[CHANCE] = ax.plot([n for n, _ in rnd], [v for _, v in rnd],
                                      linestyle="--", color="grey", label=CHANCE)[0]
        ax.set_title(variant, fontsize=9)
        ax.set_xlabel("entities")
        ax.set_xticks(ns)
        ax.set_ylim(-0.02, 1.05)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(variants):]:
        ax.set_visible(False)
    for row in axes:
        row[0].set_ylabel(metric_label(metric))
    title = f"KITMUS: {metric_label(metric).lower()} by number of entities"
    if split:
        title += f" ({split} split)"
    has_ci = any(c.ci for c in cells)
    fig.suptitle(title + ("\nerror bars: 95% bootstrap intervals over instances" if has_ci
                          else "\n(no intervals recorded in these results)"), fontsize=11)
    fig.legend(list(handles.values()), list(handles), loc="lower center",
               ncol=min(len(handles), 4), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06 + 0.03 * ((len(handles) - 1) // 4), 1, 0.97))
    save_figure(fig, out, dpi=130)


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
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.4 * nrows + 0.9),
                             squeeze=False)
    for ax, task in zip(axes.flat, tasks, strict=False):
        key = metric or HEADLINE.get(task, ("accuracy",))[0]
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
            ci = r.get("ci95", {}).get(key) if isinstance(r.get("ci95"), dict) else None
            err = [[r[key] - ci[0]], [ci[1] - r[key]]] if ci else None
            ax.bar(x, r[key], width=width * 0.9, color=colours[s], yerr=err, capsize=3)
        ax.set_xticks(range(len(sets)), [f"{d}\n({sp} split)" if sp != "-" else d
                                         for d, sp in sets], fontsize=7)
        ax.set_xlim(-0.6, len(sets) - 0.4)
        ax.set_ylabel(metric_label(key))
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{TASK_TITLES.get(task, task)}: {metric_label(key)}",
                     fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(tasks):]:
        ax.set_visible(False)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[s]) for s in systems]
    fig.legend(handles, systems, loc="lower center", ncol=min(len(systems), 5), fontsize=8,
               frameon=False)
    fig.suptitle("Results by data set\nerror bars: 95% bootstrap intervals over instances, "
                 "where recorded", fontsize=10)
    fig.tight_layout(rect=(0, 0.07 + 0.03 * ((len(systems) - 1) // 5), 1, 0.97))
    save_figure(fig, out, dpi=130)


def plot_tne_confusion(result: dict[str, Any], out: str | Path, *,
                       title: str | None = None) -> None:
    """Row-normalised preposition confusion on the gold links a system found."""
    import numpy as np

    from refbench.tasks.tne.read import PREP_ID, PREPOSITIONS

    plt = _pyplot()
    labels = list(PREPOSITIONS)
    m = np.zeros((len(labels), len(labels)))
    for gp, row in result["confusion"].items():
        for pp, n in row.items():
            m[PREP_ID[gp], PREP_ID[pp]] = n
    rows = m.sum(1, keepdims=True)
    norm = np.divide(m, rows, out=np.zeros_like(m), where=rows > 0)
    fig, ax = plt.subplots(figsize=(10, 9))
    im = ax.imshow(norm, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.set_xlabel("predicted preposition (no-relation: the link was missed)")
    ax.set_ylabel("gold preposition, the pair's first (no-relation: not a gold link)")
    ax.set_title(title or "TNE preposition confusion (rows sum to 1)")
    bar = fig.colorbar(im, ax=ax, fraction=0.04)
    bar.set_label("share of the row's NP pairs")
    fig.tight_layout()
    save_figure(fig, out)


def save_figure(fig: Any, out: str | Path, *, dpi: int = 110) -> None:
    """Write a PNG via a temporary sibling renamed into place, then close the figure."""
    plt = _pyplot()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp.png")
    fig.savefig(tmp, dpi=dpi)
    plt.close(fig)
    tmp.replace(out)
