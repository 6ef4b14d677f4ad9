"""95% intervals for accuracies that were recorded without one: from the count and the
accuracy alone, where no bootstrap over instances was run (a slice, a file of a folder result).

- Wilson's score interval for one proportion (statsmodels ``proportion_confint``), which stays
  inside [0, 1] and behaves at 0 and 1 where the normal approximation does not;
- Newcombe's hybrid score interval for the difference of two independent proportions
  (statsmodels ``confint_proportions_2indep``, ``method="newcomb"``), built from the two Wilson
  intervals: what a figure of Pro - Anti draws when the runs recorded no interval of it;
- Fisher's z interval for a Pearson correlation (Winogender's occupation correlation).

Each interval a result records says which of these made it (its ``ci95_methods``).

A count is never guessed from a rounded accuracy: :func:`exact_count` recovers ``k`` only from
a fraction that is exactly ``k / n`` (what a producer computed, or a record's JSON float of
it), and the ``*_of`` helpers give no interval otherwise (tests/metrics/test_exact_counts.py
keeps it so).
"""

from __future__ import annotations

import math

from refbench.core.table import interval_of

Interval = tuple[float, float]


Z95 = 1.9599639845400545  # the standard normal's 97.5% quantile (scipy's norm.isf(0.025))


def wilson(correct: int, n: int) -> Interval | None:
    """Wilson's 95% score interval of ``correct`` out of ``n``; None when ``n`` is 0.

    Closed form, in statsmodels' ``proportion_confint(method="wilson")`` order of operations,
    so the same floats to the last bit (a test checks), without importing statsmodels and
    scipy (seconds)."""
    if n <= 0:
        return None
    q = correct / n
    crit2 = Z95 * Z95
    denom = 1 + crit2 / n
    center = (q + crit2 / (2 * n)) / denom
    dist = Z95 * math.sqrt(q * (1.0 - q) / n + crit2 / (4.0 * n * n)) / denom
    return min(max(center - dist, 0.0), 1.0), min(max(center + dist, 0.0), 1.0)


def newcombe(correct_a: int, n_a: int, correct_b: int, n_b: int) -> Interval | None:
    """Newcombe's 95% interval of p_a - p_b for two independent samples; None without
    instances on either side."""
    if n_a <= 0 or n_b <= 0:
        return None
    from statsmodels.stats.proportion import confint_proportions_2indep

    low, high = confint_proportions_2indep(correct_a, n_a, correct_b, n_b, method="newcomb",
                                           compare="diff", alpha=0.05)
    return float(low), float(high)


def wilson_of(rate: float | None, n: int) -> Interval | None:
    """:func:`wilson` of a rate that is a count of ``n`` (``k / n``: :func:`exact_count`
    recovers ``k``); None for no rate, and for a rate that is not one (rounded, a mean over
    files): no interval is made from a guessed count."""
    right = None if rate is None else exact_count(rate, n)
    return None if right is None else wilson(right, n)


def shown_interval(rate: float, n: int, recorded: Interval | None,
                   methods: set[str]) -> Interval | None:
    """The interval a figure's bar shows: the ``recorded`` one, else :func:`wilson_of` its
    count; ``methods`` gains the name of the one used ("recorded", "Wilson"), for the
    figure's caption."""
    if recorded is not None:
        methods.add("recorded")
        return recorded
    made = wilson_of(rate, n)
    if made is not None:
        methods.add("Wilson")
    return made


def newcombe_difference(a: float, n_a: int, b: float, n_b: int) -> Interval | None:
    """:func:`newcombe` of two rates that are counts of ``n_a`` and ``n_b``; None where either
    is not one (see :func:`wilson_of`)."""
    right_a, right_b = exact_count(a, n_a), exact_count(b, n_b)
    if right_a is None or right_b is None:
        return None
    return newcombe(right_a, n_a, right_b, n_b)


def pearson_interval(r: float | None, n: int) -> Interval | None:
    """Fisher's z 95% interval of a Pearson correlation over ``n`` pairs (None for n < 4 or
    |r| = 1, where it is not defined)."""
    if r is None or n < 4 or abs(r) >= 1:
        return None
    z, se = math.atanh(r), 1 / math.sqrt(n - 3)
    return math.tanh(z - Z95 * se), math.tanh(z + Z95 * se)


CLOSED_FORM = frozenset({"wilson", "newcombe", "fisher-z"})


def recorded_interval(result: dict[str, object], key: str) -> Interval | None:
    """The interval of ``key`` a result recorded from its instances (a bootstrap), or None;
    an interval recorded by one of the closed forms above (its ``ci95_methods``) is None too,
    since a figure draws the same interval from n and the figure and says so."""
    methods = result.get("ci95_methods")
    if isinstance(methods, dict) and methods.get(key) in CLOSED_FORM:
        return None
    return interval_of(result.get("ci95"), key)


def absolute(interval: Interval) -> Interval:
    """An interval of |d| from an interval of d: the image of [low, high] under abs."""
    low, high = interval
    if low >= 0:
        return low, high
    if high <= 0:
        return -high, -low
    return 0.0, max(-low, high)


def interval_caption(methods: set[str]) -> str:
    """How a figure's error bars were made, for its title: ``methods`` holds "recorded" (a
    bootstrap interval over instances that the result recorded) and/or "Wilson" (made from an
    exact count); none of them: no error bars (no accuracy was a count of its n)."""
    if not methods:
        return "no error bars: no interval recorded, and no accuracy is an exact count of its n"
    recorded = "bootstrap intervals over instances recorded in the results"
    computed = "Wilson's interval from n and accuracy (Diff: Newcombe's)"
    if methods == {"recorded"}:
        return f"error bars: 95% {recorded}"
    if methods == {"Wilson"}:
        return f"error bars: 95% {computed}"
    return f"error bars: 95% {recorded}, else {computed}"


def exact_count(fraction: float, n: int) -> int | None:
    """The number of right answers a fraction of ``n`` was computed from, when it is one
    (``k / n`` for a whole ``k``: the float recovers ``k`` exactly); None otherwise (a mean
    over files, a figure that is not a proportion of ``n``), so no interval is made from a
    guessed count."""
    if n <= 0:
        return None
    k = round(fraction * n)
    return k if 0 <= k <= n and k / n == fraction else None
