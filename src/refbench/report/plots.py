"""Accuracy against the number of entities, one panel per variant, with the random baseline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from refbench.report.tables import Cell


def plot_entities(cells: list[Cell], random: dict[str, float], out: str | Path, *,
                  metric: str = "pronoun accuracy") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    variants = list(dict.fromkeys(c.variant for c in cells))
    systems = list(dict.fromkeys(c.system for c in cells))
    ncols = min(4, len(variants))
    nrows = (len(variants) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.6 * ncols, 3.0 * nrows), squeeze=False,
                             sharey=True)
    for ax, variant in zip(axes.flat, variants, strict=False):
        for system in systems:
            pts = sorted((c.n_entities, c.value, c.std or 0.0) for c in cells
                         if c.variant == variant and c.system == system)
            if pts:
                xs, ys, es = zip(*pts, strict=True)
                ax.errorbar(xs, ys, yerr=es, marker="o", capsize=3, label=system)
        rnd = sorted((int(k.split("|")[1]), v) for k, v in random.items()
                     if k.split("|")[0] == variant)
        if rnd:
            xs, ys = zip(*rnd, strict=True)
            ax.plot(xs, ys, linestyle="--", color="grey", label="random")
        ax.set_title(variant, fontsize=9)
        ax.set_xlabel("entities")
        ax.set_xticks([2, 3, 4])
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(variants):]:
        ax.set_visible(False)
    axes[0][0].set_ylabel(metric)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, out, dpi=120)


def save_figure(fig: Any, out: str | Path, *, dpi: int = 110) -> None:
    """Write the figure atomically (see :func:`refbench.core.io.atomic_path`), then close it;
    the image format comes from the file name's extension."""
    import matplotlib.pyplot as plt

    from refbench.core.errors import OutputError
    from refbench.core.io import atomic_path, output_error

    out = Path(out)
    formats = fig.canvas.get_supported_filetypes()
    try:
        if out.suffix.lower().lstrip(".") not in formats:
            raise OutputError(f"cannot draw a {out.suffix or 'extension-less'} file; name it "
                              f".png, .pdf or .svg (supported: {', '.join(sorted(formats))})",
                              path=out)
        with atomic_path(out) as tmp:
            try:
                fig.savefig(tmp, dpi=dpi)
            except OSError as exc:
                raise output_error(exc, out) from None
    finally:
        plt.close(fig)
