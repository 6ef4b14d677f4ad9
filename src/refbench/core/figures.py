"""Matplotlib without a display, one colour per system, figures that fit, and atomic figure
files: shared by the report's plots, by tasks that draw their own figure (KITMUS: accuracy
against entities) and by the web app's charts.

Every figure is laid out by matplotlib's constrained layout (:func:`new_figure`), which
measures titles, tick labels, axis labels, colour bars and legends placed ``outside`` and
shrinks the panels to make room. What it cannot do, shorten a title or a legend wider than the
canvas, :func:`fitted_title` and :func:`legend_below` do by measuring the text with the
figure's renderer: a title is wrapped onto more lines, a legend takes fewer columns, a label
that is still too wide is wrapped. ``tests/reporting/test_figures.py`` draws every figure refbench
writes and checks that every text lies inside the canvas.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: A bar: its value and its 95% interval (None: none to draw).
Bar = tuple[float, tuple[float, float] | None]

FIT = 0.97  # the share of the figure's width a title or a legend may take


def pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "refbench"  # the same SVG for the same figure
    import matplotlib.pyplot as plt

    return plt


def colours(systems: Sequence[str]) -> dict[str, Any]:
    plt = pyplot()
    cmap = plt.get_cmap("tab10" if len(systems) <= 10 else "tab20")
    return {s: cmap(i % cmap.N) for i, s in enumerate(systems)}


def new_figure(*, nrows: int = 1, ncols: int = 1, figsize: tuple[float, float],
               **kwargs: Any) -> tuple[Any, Any]:
    """A figure with constrained layout and a 2-d array of axes (``plt.subplots`` with
    ``squeeze=False``); ``kwargs`` go to ``plt.subplots`` (``sharey``, ``height_ratios``)."""
    plt = pyplot()
    fig, axes = plt.subplots(nrows, ncols, figsize=figsize, squeeze=False, layout="constrained",
                             **kwargs)
    return fig, axes


def _width(fig: Any, artist: Any) -> float:
    return float(artist.get_window_extent(fig.canvas.get_renderer()).width)


def wrap_to_width(fig: Any, text: str, *, fontsize: float, width: float) -> str:
    """``text`` with each line wrapped at word boundaries so that it is at most ``width``
    pixels wide at ``fontsize`` (measured with the figure's renderer); a single word wider
    than that stays whole."""
    probe = fig.text(0, 0, "", fontsize=fontsize)
    try:
        out = []
        for line in text.split("\n"):
            probe.set_text(line)
            chars = len(line)
            while chars > 8 and _width(fig, probe) > width:
                chars = int(chars * 0.85)
                probe.set_text(textwrap.fill(line, chars, break_long_words=False))
            out.append(probe.get_text())
        return "\n".join(out)
    finally:
        probe.remove()


def fitted_title(fig: Any, text: str, *, fontsize: float = 10) -> Any:
    """The figure's title (``suptitle``), wrapped to fit the figure's width."""
    fitted = wrap_to_width(fig, text, fontsize=fontsize, width=FIT * fig.bbox.width)
    return fig.suptitle(fitted, fontsize=fontsize)


def legend_below(fig: Any, handles: Sequence[Any], labels: Sequence[str], *,
                 fontsize: float = 8, max_columns: int = 5) -> Any:
    """One legend under the panels (constrained layout makes room for it), in as many
    columns (at most ``max_columns``) as fit the figure's width; labels wider than the figure
    are wrapped."""
    limit = FIT * fig.bbox.width
    labels = [wrap_to_width(fig, str(label), fontsize=fontsize, width=0.8 * limit)
              for label in labels]
    ncol = max(1, min(len(labels), max_columns))
    while True:
        legend = fig.legend(list(handles), labels, loc="outside lower center", ncol=ncol,
                            fontsize=fontsize, frameon=False)
        if ncol == 1 or _width(fig, legend) <= limit:
            return legend
        legend.remove()
        ncol -= 1


def fit_axes_titles(fig: Any) -> None:
    """Wrap each panel's title that, once the figure is laid out, would run past the
    figure's right edge (a long slice name over a narrow panel)."""
    fig.canvas.draw()  # lays the figure out; the titles' places are then known
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        for title in (ax.title, ax._left_title):
            if not ax.get_visible() or not title.get_text():
                continue
            box = title.get_window_extent(renderer)
            room = FIT * fig.bbox.x1 - box.x0
            if box.x1 > FIT * fig.bbox.x1 and room > 0:
                title.set_text(wrap_to_width(fig, title.get_text(),
                                             fontsize=title.get_fontsize(), width=room))


def fit_tick_labels(fig: Any, ax: Any, *, rotation: float = 30) -> None:
    """Slant the x tick labels when one is wider than its share of the panel (measured), so
    neighbouring labels do not run into each other."""
    labels = [t for t in ax.get_xticklabels() if t.get_text()]
    if not labels:
        return
    slot = ax.get_window_extent(fig.canvas.get_renderer()).width / len(labels)
    if max(_width(fig, t) for t in labels) > 0.95 * slot:
        for t in labels:
            t.set_rotation(rotation)
            t.set_horizontalalignment("right")
            t.set_rotation_mode("anchor")


def grouped_bars(ax: Any, categories: Sequence[str], series: Sequence[str],
                 bars: Mapping[tuple[str, str], Bar], colours: Mapping[str, Any]) -> None:
    """A group of bars per category, one bar per series (a system) in its colour, each with
    a dot at its value and its interval as an error bar; a missing (category, series) leaves
    a gap."""
    width = 0.8 / max(1, len(series))
    for j, name in enumerate(series):
        for i, category in enumerate(categories):
            if (category, name) not in bars:
                continue
            value, ci = bars[(category, name)]
            x = i + (j - (len(series) - 1) / 2) * width
            ax.bar(x, value, width=width * 0.9, color=colours[name])
            err = None if ci is None else [[max(0.0, value - ci[0])], [max(0.0, ci[1] - value)]]
            ax.errorbar(x, value, yerr=err, fmt="o", markersize=2.5, color="black", capsize=3,
                        elinewidth=1)  # the dot shows a value of 0 too
    ax.set_xticks(range(len(categories)), list(categories))
    ax.set_xlim(-0.6, len(categories) - 0.4)
    ax.grid(axis="y", alpha=0.3)


def bar_panels(panels: Sequence[tuple[str, Sequence[str]]],
               bars: Mapping[tuple[str, str, str], Bar], series: Sequence[str], *, title: str,
               ylabel: str = "accuracy", max_columns: int = 3) -> Any:
    """Panels of grouped bars on one y scale (0 to 1): ``panels`` are (title, categories),
    ``bars`` maps (panel, category, series) to a bar; one colour per series, one legend under
    the panels, the title (its first line what is drawn, then how the error bars were made)
    wrapped to fit. Returns the figure, for :func:`save_figure` or :func:`figure_bytes`."""
    plt = pyplot()
    ncols = max(1, min(max_columns, len(panels)))
    nrows = (len(panels) + ncols - 1) // ncols
    sizes = [max(1, len(categories)) for _, categories in panels]
    per_bar = 0.16 * max(1, len(series)) + 0.25
    width = min(15.0, max(6.4, 1.0 + per_bar * max(sizes) * ncols))
    ratios = sizes if nrows == 1 else None
    fig, axes = new_figure(nrows=nrows, ncols=ncols, figsize=(width, 3.0 * nrows + 1.5),
                           sharey=True, width_ratios=ratios)
    palette = colours(series)
    for ax, (name, categories) in zip(axes.flat, panels, strict=False):
        grouped_bars(ax, categories, series,
                     {(c, s): bars[(name, c, s)] for c in categories for s in series
                      if (name, c, s) in bars}, palette)
        ax.set_title(name, fontsize=9)
        ax.set_ylim(0, 1.05)
        ax.tick_params(axis="x", labelsize=8)
        fit_tick_labels(fig, ax)
    for row in axes:
        row[0].set_ylabel(ylabel)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    legend_below(fig, [plt.Rectangle((0, 0), 1, 1, color=palette[s]) for s in series],
                 list(series))
    fitted_title(fig, title)
    fit_axes_titles(fig)
    return fig


def _no_date(kind: str) -> dict[str, None] | None:
    """Metadata that leaves out the drawing time (SVG and PDF record it by default)."""
    return {"svg": {"Date": None}, "pdf": {"CreationDate": None}}.get(kind)


def save_figure(fig: Any, out: str | Path, *, dpi: int = 110) -> None:
    """Write the figure atomically (see :func:`refbench.core.io.atomic_path`), then close it;
    the image format comes from the file name's extension. An SVG carries no date, so the
    same figure gives the same bytes."""
    from refbench.core.errors import OutputError
    from refbench.core.io import atomic_path, output_error

    plt = pyplot()
    out = Path(out)
    formats = fig.canvas.get_supported_filetypes()
    kind = out.suffix.lower().lstrip(".")
    try:
        if kind not in formats:
            raise OutputError(f"cannot draw a {out.suffix or 'extension-less'} file; name it "
                              f".png, .pdf or .svg (supported: {', '.join(sorted(formats))})",
                              path=out)
        with atomic_path(out) as tmp:
            try:
                fig.savefig(tmp, dpi=dpi, format=kind, metadata=_no_date(kind))
            except OSError as exc:
                raise output_error(exc, out) from None
    finally:
        plt.close(fig)


def figure_bytes(fig: Any, kind: str = "svg", *, dpi: int = 100) -> bytes:
    """The figure drawn to memory (the web app's charts), then closed."""
    import io

    plt = pyplot()
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format=kind, dpi=dpi, metadata=_no_date(kind))
    finally:
        plt.close(fig)
    return buf.getvalue()
