"""How the Python API's objects show in a notebook: small HTML tables (``_repr_html_``, every
text escaped: a dataset's contexts are data, never markup), the matplotlib charts of
``Result.plot()`` and ``Comparison.plot()`` (sized by what they hold: one bar is as thick as
one of twenty), and :func:`results_frame`, one DataFrame of many Results."""

from __future__ import annotations

import io
from collections.abc import Sequence
from html import escape
from typing import Any

#: Inches per bar of a horizontal bar chart, and the least height of a chart (title, axis).
ROW_INCHES = 0.32
MIN_INCHES = 1.9


def html_table(header: Sequence[str], rows: Sequence[Sequence[Any]], *,
               caption: str = "") -> str:
    """A plain HTML table (every cell escaped)."""
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(_cell(c))}</td>" for c in row) + "</tr>"
                   for row in rows)
    cap = f"<caption style='text-align:left'>{caption}</caption>" if caption else ""
    return f"<table class='refbench'>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody>" \
           "</table>"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def short(text: str, n: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 1] + "…"


def interval_text(interval: tuple[float, float] | None) -> str:
    return "" if interval is None else f"[{interval[0]:.3f}, {interval[1]:.3f}]"


_FIGURE: list[type[Any]] = []


def notebook_figure(**kwargs: Any) -> Any:
    """A matplotlib figure that a notebook shows as a PNG when it is a cell's value, whatever
    the backend (it is not a pyplot figure, so the inline backend never shows it twice)."""
    if not _FIGURE:
        from matplotlib.figure import Figure as MplFigure

        class NotebookFigure(MplFigure):
            def _repr_png_(self) -> bytes:
                buf = io.BytesIO()
                self.savefig(buf, format="png", dpi=100)
                return buf.getvalue()

        _FIGURE.append(NotebookFigure)
    return _FIGURE[0](**kwargs)


def bar_figure(labels: Sequence[str], values: Sequence[float],
               intervals: Sequence[tuple[float, float] | None], *, title: str, xlabel: str,
               xlim: tuple[float, float] | None, zero_line: bool = False,
               notes: Sequence[str] = ()) -> Any:
    """Horizontal bars (or, with ``zero_line``, points) with interval whiskers, one row per
    label, top to bottom; the height grows with the rows so a bar keeps its thickness, and a
    single row still leaves room for its label, title and axis."""
    import textwrap

    n = max(1, len(labels))
    longest = max((len(s) for s in labels), default=8)
    width = min(12.0, 5.0 + 0.06 * longest)
    title = textwrap.fill(title, width=int(width * 12))  # a long label wraps, never is cut
    lines = title.count("\n")
    fig = notebook_figure(figsize=(width, max(MIN_INCHES, 1.2 + ROW_INCHES * n) + 0.17 * lines))
    ax = fig.add_subplot()
    ys = list(range(len(labels)))
    low = [v - (i or (v, v))[0] for v, i in zip(values, intervals, strict=True)]
    high = [(i or (v, v))[1] - v for v, i in zip(values, intervals, strict=True)]
    if zero_line:
        ax.axvline(0.0, color="#888888", linewidth=0.8)
        ax.errorbar(values, ys, xerr=[low, high], fmt="o", color="#4878a8", capsize=3)
    else:
        ax.barh(ys, values, height=0.6, xerr=[low, high], color="#4878a8", capsize=3)
    ax.set_yticks(ys, list(labels), fontsize=8 if n > 12 else 9)
    ax.set_ylim(n - 0.4, -0.6)  # one row or twenty: each row one unit, first at the top
    if xlim is not None:
        ax.set_xlim(*xlim)
    for y, note in enumerate(notes):
        if note:
            ax.annotate(note, xy=(1.0, y), xycoords=("axes fraction", "data"),
                        xytext=(4, 0), textcoords="offset points", va="center", fontsize=8)
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def results_frame(results: Sequence[Any]) -> Any:
    """One DataFrame of many Results (a list, or lists of them: a run of several
    benchmarks): one row per result and figure, with ``system``, ``benchmark`` (the data's
    name), ``task``, ``split``, ``figure``, ``value``, ``low``, ``high`` (its 95% interval),
    ``headline`` (the task's headline figure), ``n``, ``of`` and ``partial``; a table of
    systems by benchmarks is ``frame[frame.headline].pivot(index="system",
    columns="benchmark", values="value")``."""
    from refbench.core.errors import UsageError
    from refbench.core.result import Result as TypedResult
    from refbench.public.checks import ArgumentError
    from refbench.tasks.lookup import get_task

    if not isinstance(results, TypedResult | list | tuple):
        raise ArgumentError("results_frame", "results", "a Result or a list of Results",
                            results)
    flat: list[TypedResult] = []
    for r in ([results] if isinstance(results, TypedResult) else results):
        items = r if isinstance(r, list | tuple) else [r]
        for item in items:
            if not isinstance(item, TypedResult):
                raise UsageError(f"results_frame takes Results (refbench.run, "
                                 f"refbench.evaluate), not a {type(item).__name__}")
            flat.append(item)
    rows = []
    for r in flat:
        try:
            headline = get_task(r.task).headline_metrics[0]
        except Exception:  # a task no longer installed: no headline figure marked
            headline = None
        for f in r.figures:
            rows.append({"system": r.system.name, "benchmark": r.data.name, "task": r.task,
                         "split": r.data.split, "figure": f.name, "value": f.value,
                         "low": None if f.interval is None else f.interval[0],
                         "high": None if f.interval is None else f.interval[1],
                         "headline": f.name == headline, "n": r.coverage.n,
                         "of": r.coverage.of, "partial": r.is_partial})
    columns = ["system", "benchmark", "task", "split", "figure", "value", "low", "high",
               "headline", "n", "of", "partial"]
    import importlib

    return importlib.import_module("pandas").DataFrame(rows, columns=columns)
