"""Closed-form 95% intervals for figures that are not resampled: a proportion (Wilson score),
the difference of two independent proportions (Newcombe's hybrid score interval, built from
two Wilson intervals), and a Pearson correlation (Fisher's z). Used where a benchmark's own
figures are counts over fixed groups (WinoBias's Pro / Anti files, Winogender's pronoun
genders): each interval says which method made it."""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson(correct: int, n: int) -> tuple[float, float] | None:
    """The Wilson score interval of ``correct / n`` (None for n = 0)."""
    if n <= 0:
        return None
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(correct, n, alpha=0.05, method="wilson")
    return float(low), float(high)


def wilson_of(rate: float | None, n: int) -> tuple[float, float] | None:
    """:func:`wilson` of a rate recorded as a fraction of ``n``."""
    return None if rate is None else wilson(round(rate * n), n)


def newcombe_difference(a: float, n_a: int, b: float, n_b: int) -> tuple[float, float] | None:
    """The interval of ``a - b`` for two independent proportions (Newcombe 1998, method 10)."""
    if n_a <= 0 or n_b <= 0:
        return None
    from statsmodels.stats.proportion import confint_proportions_2indep

    low, high = confint_proportions_2indep(round(a * n_a), n_a, round(b * n_b), n_b,
                                           method="newcomb", compare="diff", alpha=0.05)
    return float(low), float(high)


def pearson_interval(r: float | None, n: int) -> tuple[float, float] | None:
    """Fisher's z interval of a Pearson correlation over ``n`` pairs (None for n < 4)."""
    if r is None or n < 4 or abs(r) >= 1:
        return None
    z, se = math.atanh(r), 1 / math.sqrt(n - 3)
    return math.tanh(z - Z95 * se), math.tanh(z + Z95 * se)
