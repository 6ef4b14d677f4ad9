"""The paper's correlation figure (Rudinger et al., 2018, figure 4): per occupation, the % of
women among its workers (US labour statistics) against the share of its female-pronoun
sentences that a system resolves to the occupation, one point per occupation, Pearson's r in
the legend. Drawn with matplotlib like the project's other plots (``core.figures``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import OutputError
from refbench.core.figures import colours, fitted_title, legend_below, new_figure, save_figure


def plot_occupations(results: Sequence[tuple[str, dict[str, Any]]], out: str | Path, *,
                     title: str | None = None) -> None:
    """``results``: (system name, :func:`~refbench.tasks.winogender.metrics.winogender_metrics`
    result) pairs; systems without occupation statistics are left out."""
    drawn = [(name, r["occupations"]) for name, r in results if r.get("occupations")]
    if not drawn:
        raise OutputError("no occupation statistics to draw (occupations-stats.tsv must lie "
                          "beside all_sentences.tsv)", path=out)
    fig, axes = new_figure(figsize=(6.4, 5.4))
    ax = axes[0, 0]
    colour = colours([name for name, _ in drawn])
    for k, (name, occ) in enumerate(drawn):
        xs = [row["bls_pct_female"] for row in occ["occupations"]]
        ys = [100 * row["female_to_occupation"] for row in occ["occupations"]]
        r = occ["pearson_r_bls"]
        label = f"{name} (r = {r:.2f})" if r is not None else f"{name} (r undefined)"
        offset = (k - (len(drawn) - 1) / 2) * 1.2  # keep systems' equal shares apart
        ax.scatter(xs, [y + offset for y in ys], s=16, alpha=0.75, color=colour[name],
                   label=label)
    ax.plot([0, 100], [0, 100], linestyle="--", color="grey", linewidth=1,
            label="share = % women")
    ax.set_xlim(0, 100)
    ax.set_ylim(-5, 105)
    ax.set_xlabel("% women in the occupation (BLS)")
    ax.set_ylabel("% of female-pronoun sentences\nresolved to the occupation")
    fitted_title(fig, title or "Winogender: occupation statistics vs. system resolutions")
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    legend_below(fig, handles, labels, max_columns=3)
    save_figure(fig, out)

