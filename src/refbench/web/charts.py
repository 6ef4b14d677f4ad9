"""The web app's charts, drawn on the server with matplotlib as SVG (no JavaScript, no request
leaving the machine): accuracy per slice with 95% intervals, a task's own figure (its report
capability's ``plot``: WinoBias Pro / Anti / Diff, Winogender by pronoun gender, KITMUS by
entities), the distribution of a run's scores, and per-document scores (TNE).

Every chart goes through :func:`svg_bytes`: the figure is laid out as the report's figures are
(``core.figures``), drawn to SVG with its texts as glyph outlines, stripped of the comments in
which matplotlib repeats those texts, and checked to hold no script, event handler, foreign
object or outside reference before it is served. Dataset text (slice values, system names)
therefore never reaches the browser as markup. The pages embed charts as ``<img>``, which the
Content-Security-Policy's ``img-src 'self'`` allows, and in which an SVG could run nothing
anyway.
"""

from __future__ import annotations

import math
import re
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from refbench.core.figures import (
    colours,
    figure_bytes,
    fit_axes_titles,
    fitted_title,
    legend_below,
    new_figure,
)
from refbench.metrics.intervals import exact_count, wilson
from refbench.tasks.base import Task

MAX_VALUES = 24  # slice values drawn per panel (those with most instances, in natural order)
_COMMENT = re.compile(rb"<!--.*?-->", re.S)
_SVG_NS = "{http://www.w3.org/2000/svg}"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"

#: One slice group: its label, then (value, {series: (accuracy, n)}) in display order.
SliceGroup = tuple[str, Sequence[tuple[str, Mapping[str, tuple[float, int]]]]]


class UnsafeSvg(ValueError):
    """A drawn SVG holds something a chart never should (a script, a handler, a link out)."""


def check_svg(data: bytes) -> None:
    """Refuse an SVG with a script, a foreign object, an event-handler attribute or a
    reference to anything but a fragment of itself."""
    root = ET.fromstring(data)  # matplotlib's own output; no entities, no DTD
    for el in root.iter():
        tag = el.tag.removeprefix(_SVG_NS).lower() if isinstance(el.tag, str) else ""
        if tag in ("script", "foreignobject", "iframe", "object", "embed"):
            raise UnsafeSvg(f"an SVG chart holds a <{tag}> element")
        for name, value in el.attrib.items():
            local = name.rsplit("}", 1)[-1].lower()
            if local.startswith("on"):
                raise UnsafeSvg(f"an SVG chart holds an event handler ({local})")
            if (local == "href" or name == _XLINK_HREF) and not value.startswith("#"):
                raise UnsafeSvg("an SVG chart links outside itself")


def svg_bytes(fig: Any) -> bytes:
    """The figure as a checked SVG without comments (then closed)."""
    data = _COMMENT.sub(b"", figure_bytes(fig, "svg"))
    check_svg(data)
    return data


def _natural(value: str) -> tuple[int, float | str]:
    try:
        return 0, float(value)
    except ValueError:
        return 1, value


def _capped(label: str, rows: Sequence[tuple[str, Mapping[str, tuple[float, int]]]]
            ) -> tuple[str, list[tuple[str, Mapping[str, tuple[float, int]]]]]:
    """At most ``MAX_VALUES`` values of a slice: the most frequent, in their natural order."""
    rows = list(rows)
    if len(rows) <= MAX_VALUES:
        return label, rows
    keep = sorted(rows, key=lambda r: -sum(n for _, n in r[1].values()))[:MAX_VALUES]
    return (f"{label} ({MAX_VALUES} of {len(rows)} values, those with the most instances; "
            "the table has all)",
            sorted(keep, key=lambda r: _natural(r[0])))


def slice_chart(groups: Sequence[SliceGroup], series: Sequence[str], *, title: str,
                show_n: bool = False, chance: float | None = None) -> bytes:
    """Accuracy per value of each slice, one panel of horizontal bars per slice (values as
    long as the data makes them read on the left), a bar per series with its 95% Wilson
    interval and a dot at its value (so that 0 shows); ``show_n``: each value's number of
    instances beside it (one series); ``chance``: a dotted line at a uniform guess's accuracy
    in every panel, as the KITMUS figure draws its random baseline."""
    import textwrap

    from matplotlib.patches import Rectangle

    panels = [_capped(label, rows) for label, rows in groups]
    per_value = 0.2 * len(series) + 0.12
    heights = [0.55 + per_value * len(rows) for _, rows in panels]
    fig, axes = new_figure(nrows=len(panels), figsize=(8.0, 1.3 + sum(heights)), sharex=True,
                           height_ratios=heights)
    palette = colours(series)
    height = 0.8 / max(1, len(series))
    for k, (ax, (label, rows)) in enumerate(zip(axes[:, 0], panels, strict=True)):
        if chance is not None:
            ax.axvline(chance, color="0.35", linestyle=":", linewidth=1.2, gid=f"chance-{k}")
        names = []
        for i, (value, by) in enumerate(rows):
            text = textwrap.shorten(value, 60, placeholder="…") or "(empty)"
            if show_n:
                text += f" (n={sum(n for _, n in by.values()):,})"
            names.append(text)
            for j, s in enumerate(series):
                if s not in by:
                    continue
                acc, n = by[s]
                y = i + (j - (len(series) - 1) / 2) * height
                ax.barh(y, acc, height=height * 0.9, color=palette[s])
                right = exact_count(acc, n)
                ci = wilson(right, n) if right is not None else None
                if ci is not None:
                    ax.errorbar(acc, y, xerr=[[max(0.0, acc - ci[0])], [max(0.0, ci[1] - acc)]],
                                fmt="o", color="black", markersize=2.5, capsize=2,
                                elinewidth=1)
        ax.set_yticks(range(len(rows)), names, fontsize=8)
        ax.set_ylim(len(rows) - 0.5, -0.5)
        ax.set_title(label, loc="left", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[-1, 0].set_xlim(0, 1)
    axes[-1, 0].set_xlabel("accuracy")
    if len(series) > 1:
        legend_below(fig, [Rectangle((0, 0), 1, 1, color=palette[s]) for s in series],
                     list(series))
    note = f"; dotted: chance ({chance:.2f})" if chance is not None else ""
    fitted_title(fig, f"{title}\nerror bars: 95% Wilson intervals from n and accuracy{note}")
    fit_axes_titles(fig)
    return svg_bytes(fig)


def run_slice_groups(slices: Mapping[str, Mapping[str, Mapping[str, Any]]], series: str,
                     labels: Mapping[str, str]) -> list[SliceGroup]:
    """A run's recorded ``slices`` (key -> value -> n, accuracy) as slice groups."""
    groups: list[SliceGroup] = []
    for key, values in slices.items():
        rows = [(str(v), {series: (float(c["accuracy"]), int(c["n"]))})
                for v, c in sorted(values.items(), key=lambda x: _natural(str(x[0])))
                if c.get("accuracy") is not None and c.get("n")]
        if rows:
            groups.append((labels.get(key, key.replace("_", " ")), rows))
    return groups


def _finite(values: Sequence[Any]) -> list[float]:
    return [float(v) for v in values if isinstance(v, int | float) and math.isfinite(v)]


def score_chart(scores: Sequence[Sequence[Any]], correct: Sequence[bool | None], *,
                title: str) -> bytes | None:
    """Two histograms of a run's scores: every candidate's score, and each instance's margin
    between its two highest scores, stacked by whether the answer was right. None when no
    instance has two scores."""
    every: list[float] = []
    margins: dict[str, list[float]] = {"right": [], "wrong": [], "no gold": []}
    for row, ok in zip(scores, correct, strict=True):
        values = sorted(_finite(row), reverse=True)
        every += values
        if len(values) >= 2:
            kind = "no gold" if ok is None else "right" if ok else "wrong"
            margins[kind].append(values[0] - values[1])
    if not any(margins.values()):
        return None
    from matplotlib.ticker import MaxNLocator

    fig, axes = new_figure(ncols=2, figsize=(9.0, 3.8))
    left, right = axes[0]
    left.hist(every, bins=40, color="#4c72b0")
    left.set_title("every candidate's score", fontsize=9)
    left.set_xlabel("score")
    left.set_ylabel("candidates")
    kinds = [k for k, v in margins.items() if v]
    palette = {"right": "#55a868", "wrong": "#c44e52", "no gold": "#8c8c8c"}
    right.hist([margins[k] for k in kinds], bins=30, stacked=True,
               color=[palette[k] for k in kinds], label=kinds)
    right.set_title("margin: highest score minus the second", fontsize=9)
    right.set_xlabel("margin")
    right.set_ylabel("instances")
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    handles, labels = right.get_legend_handles_labels()
    legend_below(fig, handles, [f"{k} ({len(margins[k]):,})" for k in labels])
    n = sum(len(v) for v in margins.values())
    fitted_title(fig, f"{title}\nscores of {n:,} instances; a small margin is a close call")
    return svg_bytes(fig)


def documents_chart(by_series: Mapping[str, Sequence[float]], *, title: str,
                    metric: str = "labeled F1") -> bytes | None:
    """The distribution of a per-document score (TNE: labeled F1) for each series, as
    outlined histograms over [0, 1] with each series' mean marked. None without documents."""
    from matplotlib.ticker import MaxNLocator

    drawn = {s: _finite(v) for s, v in by_series.items() if _finite(v)}
    if not drawn:
        return None
    fig, axes = new_figure(figsize=(7.5, 4.0))
    ax = axes[0, 0]
    palette = colours(list(drawn))
    bins = [k / 20 for k in range(21)]
    for s, values in drawn.items():
        mean = sum(values) / len(values)
        ax.hist(values, bins=bins, histtype="step", linewidth=1.8, color=palette[s],
                label=f"{s} (mean {mean:.3f}, {len(values):,} documents)")
        ax.axvline(mean, color=palette[s], linestyle="--", linewidth=1)
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"{metric} of a document")
    ax.set_ylabel("documents")
    ax.grid(alpha=0.3)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    handles, labels = ax.get_legend_handles_labels()
    legend_below(fig, handles, labels, max_columns=2)
    fitted_title(fig, f"{title}\ndashed: each system's mean over documents")
    return svg_bytes(fig)


def task_chart(task: Task, results: Sequence[dict[str, Any]]) -> bytes | None:
    """The task's own figure of these results (its report capability's ``plot``, as
    ``refbench report --plot`` draws it) as SVG; None when the task draws none."""
    if task.report is None or not results:
        return None
    with tempfile.TemporaryDirectory(prefix="refbench-chart-") as tmp:
        out = Path(tmp) / "figure.svg"
        if not task.report.plot(results, out):
            return None
        data = _COMMENT.sub(b"", out.read_bytes())
    check_svg(data)
    return data
