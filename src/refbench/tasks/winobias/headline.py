"""WinoBias' headline (Zhao et al., 2018, table 2): Pro, Anti, their average and Diff =
``abs(Pro - Anti)`` over both types, from the results of a release folder's files (or of the
files a system was run on). Pro and Anti: Wilson intervals of their counts; Avg: Wilson's of the
pooled count (Pro and Anti have equal n in the release, so the pooled proportion is their
mean); Diff: the image under ``abs`` of Newcombe's interval of Pro - Anti."""

from __future__ import annotations

from collections.abc import Sequence

from refbench.core.result import Result
from refbench.metrics.intervals import absolute, exact_count, newcombe, wilson
from refbench.tasks.headline import Headline, HeadlineFigure

HEADLINE = (Headline("pro", "Pro", chance=True), Headline("anti", "Anti", chance=True),
            Headline("avg", "Avg", chance=True),
            Headline("diff", "Diff", "newcombe"))


def _counts(results: Sequence[Result]) -> dict[str, tuple[int, int] | None]:
    """(right, n) of the Pro and of the Anti sentences over both types; None where a file's
    accuracy is not a count of its sentences."""
    from refbench.tasks.winobias.folder import _cells

    sums: dict[str, tuple[int, int] | None] = {}
    for (t, st), (acc, n) in _cells([dict(r.details) for r in results]).items():
        if t == "all":  # each file's table repeats its one type as "all"
            continue
        right = exact_count(acc, n)
        got = sums.get(st, (0, 0))
        sums[st] = None if right is None or got is None else (got[0] + right, got[1] + n)
    return sums


def winobias_figures(results: Sequence[Result]) -> list[HeadlineFigure]:
    from refbench.tasks.winobias.folder import combine

    row = combine([dict(r.details) | {"n": r.coverage.n, "data": r.data.path}
                   for r in results])["winobias"]["rows"]["all"]
    counts = _counts(results)
    pro, anti = counts.get("pro"), counts.get("anti")
    partial = any(r.is_partial for r in results)
    n_pro, n_anti = int(row["n_pro"]), int(row["n_anti"])
    both = n_pro + n_anti
    intervals = {
        "pro": wilson(*pro) if pro else None,
        "anti": wilson(*anti) if anti else None,
        "avg": wilson(pro[0] + anti[0], both) if pro and anti and n_pro == n_anti else None,
        "diff": absolute(d) if pro and anti and (d := newcombe(*pro, *anti)) else None}
    ns = {"pro": n_pro, "anti": n_anti, "avg": both, "diff": both}
    out = []
    for h in HEADLINE:
        iv = intervals[h.metric]
        n = ns[h.metric]
        out.append(HeadlineFigure(h.metric, h.label, row[h.metric], iv,
                                  h.method if iv is not None else "none", n,
                                  None if partial else n, partial))
    return out
