"""The TNE preposition confusion heat-map of one result (``refbench evaluate --plot``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from refbench.core.figures import fitted_title, new_figure, save_figure


def plot_tne_confusion(result: dict[str, Any], out: str | Path, *,
                       title: str | None = None) -> None:
    """Row-normalised preposition confusion on the gold links a system found."""
    import numpy as np

    from refbench.tasks.tne.read import PREP_ID, PREPOSITIONS

    labels = list(PREPOSITIONS)
    m = np.zeros((len(labels), len(labels)))
    for gp, row in result["confusion"].items():
        for pp, n in row.items():
            m[PREP_ID[gp], PREP_ID[pp]] = n
    rows = m.sum(1, keepdims=True)
    norm = np.divide(m, rows, out=np.zeros_like(m), where=rows > 0)
    fig, axes = new_figure(figsize=(10, 9))
    ax = axes[0, 0]
    im = ax.imshow(norm, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.set_xlabel("predicted preposition (no-relation: the link was missed)")
    ax.set_ylabel("gold preposition, the pair's first (no-relation: not a gold link)")
    fitted_title(fig, title or "TNE preposition confusion (rows sum to 1)", fontsize=12)
    bar = fig.colorbar(im, ax=ax, fraction=0.04)
    bar.set_label("share of the row's NP pairs")
    save_figure(fig, out)
