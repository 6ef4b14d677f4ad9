"""McNemar's exact test in closed form: the two-sided binomial test on the discordant pairs,
without statsmodels or SciPy (their import takes seconds)."""

from __future__ import annotations

import math

EXACT_UP_TO = 2000  # discordant pairs summed with exact integers; more: in floats


def mcnemar_exact_p(only_a: int, only_b: int) -> float:
    """Two-sided p of McNemar's exact test for discordant counts ``only_a`` (a right, b wrong)
    and ``only_b``: ``min(1, 2 * P(X <= min(only_a, only_b)))`` with ``X ~ Bin(only_a +
    only_b, 1/2)``, as statsmodels' ``mcnemar(table, exact=True)`` defines it. Up to
    :data:`EXACT_UP_TO` discordant pairs the tail is summed exactly and rounded once; beyond,
    from its largest term down in floats (statsmodels' incomplete-beta value agrees to about
    1e-12 relative in the first case, 1e-9 in the second)."""
    if only_a < 0 or only_b < 0:
        raise ValueError("discordant counts cannot be negative")
    m = only_a + only_b
    k = min(only_a, only_b)
    if m <= EXACT_UP_TO:
        exact = tail = 1  # C(m, 0)
        for i in range(k):
            exact = exact * (m - i) // (i + 1)
            tail += exact
        return min(float(2 * tail / 2**m), 1.0)
    log_top = math.lgamma(m + 1) - math.lgamma(k + 1) - math.lgamma(m - k + 1) - m * math.log(2)
    term: float = math.exp(log_top)
    total = 0.0
    for i in range(k, -1, -1):  # C(m, i-1) = C(m, i) * i / (m - i + 1): terms only shrink
        total += term
        term *= i / (m - i + 1)
        if term < total * 1e-17:
            break
    return min(2 * total, 1.0)
