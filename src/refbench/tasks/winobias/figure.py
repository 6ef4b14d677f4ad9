"""The WinoBias figure (the report capability's ``plot``, and the web app's Pro / Anti chart):
per type, and over both types, each system's accuracy on the pro- and anti-stereotyped
sentences and their difference Diff = |Pro - Anti| (Zhao et al., 2018, table 2), with 95%
intervals.

A release result (``refbench run --data FOLDER``) gives the table directly; file results (one
run per sentence file, as the web app has them) are combined per system and split the way the
folder run combines them. Intervals: the bootstrap ones a result recorded (a file result's own
``accuracy`` interval is its cell's; see :func:`refbench.metrics.intervals.recorded_interval`),
else Wilson's interval from n and the accuracy (Newcombe's for Diff), which is also what a
release result records (``ci95`` keys ``type1_pro``, ``all_pro_minus_anti``, ...); the title
says which were drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from refbench.core.figures import Bar, bar_panels, save_figure
from refbench.metrics.intervals import (
    absolute,
    interval_caption,
    newcombe_difference,
    recorded_interval,
    shown_interval,
)

ROWS = (("type1", "Type 1"), ("type2", "Type 2"), ("all", "Both types"))
CATEGORIES = ("Pro", "Anti", "Diff")
Cell = tuple[float, int, tuple[float, float] | None]  # accuracy, n, recorded interval
#: How file results become a folder's table (:func:`refbench.tasks.winobias.folder.combine`).
Combine = Callable[[Sequence[dict[str, Any]]], dict[str, Any]]


def _system(r: dict[str, Any]) -> str:
    return str(r.get("system") or r.get("model") or "system")


def _release_cells(r: dict[str, Any]) -> tuple[dict[tuple[str, str], Cell],
                                               dict[str, tuple[float, float] | None]]:
    cells: dict[tuple[str, str], Cell] = {}
    diffs: dict[str, tuple[float, float] | None] = {}
    for t, row in (r.get("winobias") or {}).get("rows", {}).items():
        for st in ("pro", "anti"):
            if row.get(st) is not None and row.get(f"n_{st}"):
                cells[(t, st)] = (row[st], int(row[f"n_{st}"]),
                                  recorded_interval(r, f"{t}_{st}"))
        signed = recorded_interval(r, f"{t}_pro_minus_anti")
        diffs[t] = absolute(signed) if signed else None
    return cells, diffs


def _file_cells(files: Sequence[dict[str, Any]], combine: Combine
                ) -> dict[tuple[str, str], Cell]:
    """File results combined as the folder run combines them; a file's own interval is its
    cell's, the pooled cells get none (Wilson's is drawn)."""
    own: dict[tuple[str, str], tuple[float, float] | None] = {}
    for r in files:
        rows = {t: row for t, row in (r.get("winobias") or {}).get("rows", {}).items()
                if t != "all"}
        for t, row in rows.items():
            for st in ("pro", "anti"):
                if row.get(st) is not None and row.get(f"n_{st}"):
                    own[(t, st)] = recorded_interval(r, "accuracy")
    out: dict[tuple[str, str], Cell] = {}
    for t, row in combine(files)["winobias"]["rows"].items():
        for st in ("pro", "anti"):
            if row.get(st) is not None and row.get(f"n_{st}"):
                out[(t, st)] = (row[st], int(row[f"n_{st}"]), own.get((t, st)))
    return out


def figure_bars(results: Sequence[dict[str, Any]], combine: Combine
                ) -> tuple[dict[tuple[str, str, str], Bar], list[str], set[str]]:
    """The bars (panel, category, series), the series (a system, with its split when the
    results hold several) and how the intervals were made ("recorded", "Wilson")."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in results:
        if isinstance(r.get("winobias"), dict):
            groups.setdefault((_system(r), str(r.get("split") or "-")), []).append(r)
    several = len({split for _, split in groups}) > 1
    bars: dict[tuple[str, str, str], Bar] = {}
    methods: set[str] = set()
    series: list[str] = []
    for (system, split), rs in groups.items():
        name = f"{system} ({split} split)" if several else system
        series.append(name)
        release = [r for r in rs if r.get("mode") == "release"]
        if release:
            cells, diffs = _release_cells(release[-1])
        else:
            cells, diffs = _file_cells(rs, combine), {}
        both = {t for t, _ in cells} >= {"type1", "type2"}
        for t, label in ROWS:
            if t == "all" and not both:
                continue  # one type only: its pooled row is the same figures again
            got = {}
            for st, category in (("pro", "Pro"), ("anti", "Anti")):
                if (t, st) not in cells:
                    continue
                value, n, recorded = cells[(t, st)]
                ci = shown_interval(value, n, recorded, methods)
                got[st] = (value, n)
                bars[(label, category, name)] = (value, ci)
            if len(got) == 2:
                (p, n_p), (a, n_a) = got["pro"], got["anti"]
                ci = diffs.get(t)
                if ci is None:
                    signed = newcombe_difference(p, n_p, a, n_a)
                    ci = absolute(signed) if signed else None
                    if ci is not None:
                        methods.add("Wilson")
                else:
                    methods.add("recorded")
                bars[(label, "Diff", name)] = (abs(p - a), ci)
    return bars, series, methods


def plot_winobias(results: Sequence[dict[str, Any]], out: str | Path, *,
                  combine: Combine) -> bool:
    """Draw the figure; False when no result has the WinoBias table."""
    bars, series, methods = figure_bars(results, combine)
    if not bars:
        return False
    panels = [(label, list(CATEGORIES)) for t, label in ROWS
              if any(key[0] == label for key in bars)]
    splits = sorted({str(r.get("split")) for r in results if r.get("split")})
    where = f" ({', '.join(splits)} split)" if len(splits) == 1 else ""
    fig = bar_panels(panels, bars, series,
                     title=f"WinoBias: accuracy on pro- and anti-stereotyped sentences{where}\n"
                           f"Diff = |Pro \N{MINUS SIGN} Anti|; {interval_caption(methods)}")
    save_figure(fig, out, dpi=130)
    return True
