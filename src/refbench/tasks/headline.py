"""What a paper's main table shows of a benchmark: its *headline* figures, each with the one
named method its 95% interval is made by.

A task declares its headline (:attr:`refbench.tasks.base.Task.headline`, a tuple of
:class:`Headline`) and turns the results of one system on one benchmark (a data file's result,
or the results of every file of a folder: a WinoBias release, a KITMUS suite) into
:class:`HeadlineFigure` values (:meth:`refbench.tasks.base.Task.headline_figures`). The model
card (:mod:`refbench.reporting.card`), the leaderboard and the compare page show those figures
and their method's name; none derives an interval of its own.

The methods:

- ``wilson``: Wilson's score interval of a proportion from its count (stays inside [0, 1] and
  is not degenerate at 0 or n of n, where the percentile bootstrap gives [1, 1]);
- ``newcombe``: Newcombe's hybrid score interval of the difference of two independent
  proportions (WinoBias' Diff, ``abs(Pro - Anti)``, takes its image under ``abs``);
- ``bootstrap``: a seeded percentile bootstrap over instances, recorded by the producer (F1,
  ratios: GAP's F1 and bias, TNE's labeled F1);
- ``none``: no interval is defined (the result recorded none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from refbench.core.result import Result
from refbench.metrics.intervals import Interval, exact_count, wilson

__all__ = ["METHODS", "Headline", "HeadlineFigure", "figure_of", "proportion"]

#: The interval methods a headline figure may name, with what a table's note says of each.
METHODS = {
    "wilson": "Wilson score interval of the proportion",
    "newcombe": "Newcombe's hybrid score interval of the difference (|d| for Diff)",
    "bootstrap": "seeded percentile bootstrap over instances, recorded by the run",
    "none": "no interval",
}


@dataclass(frozen=True)
class Headline:
    """One headline figure a task declares: the result key it reads (``metric``), its label
    in tables, and the method of its interval (a key of :data:`METHODS`). ``chance``: the
    figure is a proportion of right answers, compared with the chance level."""

    metric: str
    label: str
    method: str = "wilson"
    chance: bool = False
    #: Where the result's details hold the value and its n when not at the top level
    #: (Winogender's gotcha accuracy: ``("gotcha", "gotcha", "accuracy")``).
    value_at: tuple[str, ...] = ()
    n_at: tuple[str, ...] = ()


@dataclass(frozen=True)
class HeadlineFigure:
    """One cell figure of the model card: the value, its interval by ``method``, and n of N
    (the instances the figure is over, of those the data holds)."""

    metric: str
    label: str
    value: float | None
    interval: Interval | None
    method: str
    n: int
    of: int | None
    partial: bool = False

    def record(self) -> dict[str, Any]:
        low, high = self.interval if self.interval is not None else (None, None)
        return {"metric": self.metric, "value": self.value, "ci_low": low, "ci_high": high,
                "n": self.n, "N": self.of, "partial": self.partial, "method": self.method}


def proportion(head: Headline, right: int, n: int, *, of: int | None,
               partial: bool = False) -> HeadlineFigure:
    """A proportion ``right`` of ``n`` with its Wilson interval."""
    return HeadlineFigure(head.metric, head.label, right / n if n else None,
                          wilson(right, n), "wilson", n, of, partial)


def _n_scored(r: Result) -> int:
    n = r.details.get("n_with_gold")
    return n if isinstance(n, int) else r.coverage.n


def figure_of(head: Headline, r: Result, *, value: float | None = None, n: int | None = None,
              ) -> HeadlineFigure:
    """``head`` of one result: a ``wilson`` proportion from its exact count over ``n`` (the
    instances with gold unless given), else the interval the result recorded (``bootstrap``)."""
    if value is None:
        at = nested(r.details, *head.value_at) if head.value_at else r.value(head.metric)
        value = float(at) if isinstance(at, int | float) and not isinstance(at, bool) else None
    v = value
    if n is None:
        at_n = nested(r.details, *head.n_at) if head.n_at else None
        n = at_n if isinstance(at_n, int) else _n_scored(r)
    of, partial = r.coverage.of, r.is_partial
    if head.method == "wilson" and v is not None:
        right = exact_count(v, n)
        if right is not None:
            return proportion(head, right, n, of=of, partial=partial)
    f = r.figure(head.metric)
    interval = f.interval if f is not None and head.method == "bootstrap" else None
    return HeadlineFigure(head.metric, head.label, v, interval,
                          head.method if interval is not None else "none", n, of, partial)


def nested(details: Mapping[str, Any], *keys: str) -> Any:
    """``details[k1][k2]...``, or None where a level is missing."""
    cur: Any = details
    for k in keys:
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(k)
    return cur


def default_figures(heads: Sequence[Headline], results: Sequence[Result]
                    ) -> list[HeadlineFigure]:
    """The headline of a benchmark of one data file (one result); of several files (a folder
    run of a task without its own headline), each proportion pooled over the files' counts."""
    if len(results) == 1:
        return [figure_of(h, results[0]) for h in heads]
    out = []
    for h in heads:
        right = n = 0
        of: int | None = 0
        for r in results:
            v = r.value(h.metric)
            k = _n_scored(r)
            c = exact_count(v, k) if v is not None else None
            if c is None:
                break
            right, n = right + c, n + k
            of = None if of is None or r.coverage.of is None else of + r.coverage.of
        else:
            out.append(proportion(h, right, n, of=of,
                                  partial=any(r.is_partial for r in results)))
            continue
        out.append(HeadlineFigure(h.metric, h.label, None, None, "none", n, of,
                                  any(r.is_partial for r in results)))
    return out
