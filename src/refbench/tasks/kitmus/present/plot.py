"""The KITMUS figure: accuracy against the number of entities, one panel per variant (the
KITMUS task's ``plot``). Every system keeps one colour in every panel, one legend covers all
systems and the chance level, error bars are the 95% intervals the scorers computed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from refbench.core.figures import colours as _colours
from refbench.core.figures import fitted_title, legend_below, new_figure, save_figure
from refbench.core.table import metric_label
from refbench.tasks.kitmus.present.tables import CHANCE, Cell


def plot_entities(cells: list[Cell], random: dict[str, float], out: str | Path, *,
                  metric: str = "pronoun_accuracy", split: str | None = None) -> None:
    from refbench.tasks.kitmus.registries import variant_order

    variants = sorted({c.variant for c in cells}, key=lambda v: (variant_order(v), v))
    systems = list(dict.fromkeys(c.system for c in cells))
    colours = _colours(systems)
    ns = sorted({c.n_entities for c in cells})
    ncols = min(4, len(variants))
    nrows = (len(variants) + ncols - 1) // ncols
    fig, axes = new_figure(nrows=nrows, ncols=ncols, sharey=True,
                           figsize=(max(5.6, 3.4 * ncols), 2.9 * nrows + 1.3))
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
                                      linestyle="--", color="grey", label=CHANCE,
                                      marker="_", markersize=14)[0]  # one count: a tick
        ax.set_title(variant, fontsize=9)
        ax.set_xlabel("entities")
        ax.set_xticks(ns)
        ax.set_xlim(min(ns) - 0.5, max(ns) + 0.5)  # one entity count: not a sliver around it
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
    fitted_title(fig, title + ("\nerror bars: 95% bootstrap intervals over instances"
                               if has_ci else "\n(no intervals recorded in these results)"),
                 fontsize=11)
    legend_below(fig, list(handles.values()), list(handles), max_columns=4)
    save_figure(fig, out, dpi=130)
