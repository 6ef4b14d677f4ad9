"""The model card as a figure: one panel per benchmark, each headline figure a group of points
(one per system) with its 95% interval, and the chance level as a dotted line where the
figure is a proportion of right answers with a known chance level (two candidates: 0.5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from refbench.reporting.card_render import PARTIAL_MARK, ModelCard


def _chance(card: ModelCard, benchmark: str) -> float | None:
    """The chance level of a benchmark whose headline is a proportion of right answers: the
    mean of 1 / candidates over the instances of a run's predictions (as ``run`` prints it),
    or None."""
    import json

    from refbench.tasks.lookup import find_task

    for s in card.systems:
        c = card.cell(s, benchmark)
        for e in c.entries if c else ():
            task = find_task(e.result.task)
            if task is None or not any(h.chance for h in task.headline):
                return None
            preds = Path(e.source or "") / "predictions.jsonl"
            if not e.source or not preds.is_file():
                continue
            with preds.open(encoding="utf-8") as fh:
                k = [len(json.loads(line).get("scores") or ()) for line in fh if line.strip()]
            k = [x for x in k if x]
            if k:
                return sum(1 / x for x in k) / len(k)
    return None


def plot_card(card: ModelCard, out: str | Path | None = None) -> Any:
    import matplotlib

    if out is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = max(1, len(card.benchmarks))
    fig, axes = plt.subplots(1, k, figsize=(3.2 * k + 1, 3.6), squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, b in zip(axes[0], card.benchmarks, strict=False):
        metrics = card.metrics(b)
        width = 0.7 / max(1, len(card.systems))
        for j, s in enumerate(card.systems):
            c = card.cell(s, b.name)
            for i, (metric, _) in enumerate(metrics):
                f = next((x for x in c.figures if x.metric == metric), None) if c else None
                if f is None or f.value is None:
                    continue
                x = i + (j - (len(card.systems) - 1) / 2) * width
                err = None if f.interval is None else \
                    [[max(0.0, f.value - f.interval[0])], [max(0.0, f.interval[1] - f.value)]]
                ax.errorbar([x], [f.value], yerr=err, fmt="o" if not f.partial else "x",
                            color=colors[j % len(colors)], capsize=3,
                            label=s if i == 0 else None)
        chance = _chance(card, b.name)
        if chance is not None:
            ax.axhline(chance, color="0.4", linestyle=":", linewidth=1, label="chance")
        ax.set_xticks(range(len(metrics)), [label for _, label in metrics], rotation=30,
                      ha="right", fontsize=8)
        ax.set_title(b.name, fontsize=9)
        ax.set_xlim(-0.6, len(metrics) - 0.4)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper right", fontsize=8)
    fig.suptitle(f"Model card: 95% intervals; x = partial ({PARTIAL_MARK})", fontsize=10)
    fig.tight_layout(rect=(0, 0, 0.9, 0.95))
    if out is not None:
        fig.savefig(out, dpi=120)
        plt.close(fig)
    return fig
