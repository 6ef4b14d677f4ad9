"""Paired significance between two systems on the same instances (the web app's compare page,
``refbench.compare``).

- McNemar's exact test (:func:`refbench.metrics.binomial.mcnemar_exact_p`: statsmodels'
  definition in closed form): the binomial test on the discordant pairs, the right test for
  two classifiers scored on the same items.
- A paired bootstrap (SciPy's ``bootstrap`` with ``paired=True``): instances resampled with
  replacement, both systems together; the 95% percentile interval of the accuracy difference
  and the two-sided bootstrap p-value (twice the smaller tail of the resampled differences at 0,
  counted as (k + 1) / (B + 1)). With few instances the bootstrap is unreliable; the page says so.
  Seeded, so the same runs give the same figures.

Wilson's interval for an accuracy recorded without a bootstrap one is
:func:`refbench.metrics.intervals.wilson`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from refbench.metrics.binomial import mcnemar_exact_p

BOOTSTRAP_RESAMPLES = 1000
DEFAULT_SEED = 0


@dataclass(frozen=True)
class PairedResult:
    n: int
    both_correct: int
    only_a: int  # a right, b wrong
    only_b: int
    both_wrong: int
    accuracy_a: float
    accuracy_b: float
    mcnemar_p: float
    diff: float  # accuracy a - accuracy b
    diff_low: float
    diff_high: float
    bootstrap_p: float
    resamples: int
    seed: int


def paired_test(a: Sequence[int], b: Sequence[int], *, resamples: int = BOOTSTRAP_RESAMPLES,
                seed: int = DEFAULT_SEED) -> PairedResult | None:
    """Both tests on per-instance correctness (1/0) of two systems; None without instances."""
    import numpy as np

    if len(a) != len(b):
        raise ValueError("paired correctness columns must have the same length")
    n = len(a)
    if n == 0:
        return None
    x = np.asarray(a, dtype=np.int8)
    y = np.asarray(b, dtype=np.int8)
    both = int(np.sum((x == 1) & (y == 1)))
    only_a = int(np.sum((x == 1) & (y == 0)))
    only_b = int(np.sum((x == 0) & (y == 1)))
    neither = n - both - only_a - only_b
    p_mcnemar = mcnemar_exact_p(only_a, only_b)
    diff = float(x.mean() - y.mean())
    if only_a + only_b == 0 or n < 2:
        low = high = diff
        p_boot = 1.0
    else:
        low, high, p_boot = _paired_bootstrap(x, y, resamples=resamples, seed=seed)
    return PairedResult(n=n, both_correct=both, only_a=only_a, only_b=only_b, both_wrong=neither,
                        accuracy_a=float(x.mean()), accuracy_b=float(y.mean()),
                        mcnemar_p=p_mcnemar, diff=diff, diff_low=low, diff_high=high,
                        bootstrap_p=p_boot, resamples=resamples, seed=seed)


def _mean_difference(x: object, y: object, axis: int = -1) -> object:
    import numpy as np

    return np.mean(x, axis=axis) - np.mean(y, axis=axis)  # type: ignore[call-overload]


def _paired_bootstrap(x: Any, y: Any, *, resamples: int, seed: int
                      ) -> tuple[float, float, float]:
    """The seeded paired bootstrap of mean(x) - mean(y): its 95% percentile interval and a
    two-sided p, with the usual +1 so a finite number of resamples never claims p = 0."""
    import numpy as np
    from scipy.stats import bootstrap

    res = bootstrap((x, y), _mean_difference, paired=True, vectorized=True,
                    n_resamples=resamples, method="percentile", confidence_level=0.95,
                    batch=50, rng=np.random.default_rng(seed))
    dist = res.bootstrap_distribution
    tail = min(int(np.sum(dist <= 0)), int(np.sum(dist >= 0)))
    return (float(res.confidence_interval.low), float(res.confidence_interval.high),
            float(min(1.0, 2 * (tail + 1) / (len(dist) + 1))))


@dataclass(frozen=True)
class PairedMeans:
    n: int
    mean_a: float
    mean_b: float
    diff: float  # mean of a - b
    diff_low: float
    diff_high: float
    bootstrap_p: float
    permutation_p: float
    resamples: int
    seed: int


def paired_means_test(a: Sequence[float], b: Sequence[float], *,
                      resamples: int = BOOTSTRAP_RESAMPLES, seed: int = DEFAULT_SEED
                      ) -> PairedMeans | None:
    """Two systems' scores on the same units (TNE: labeled F1 per document): a paired
    bootstrap of the mean difference (SciPy, percentile interval, two-sided p counted as for
    accuracies) and a sign-flip permutation test of it (SciPy ``permutation_test``, paired
    samples). None without units."""
    import numpy as np
    from scipy.stats import permutation_test

    if len(a) != len(b):
        raise ValueError("paired score columns must have the same length")
    n = len(a)
    if n == 0:
        return None
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    diff = float(x.mean() - y.mean())
    if n < 2 or np.all(x == y):
        low = high = diff
        p_boot = p_perm = 1.0
    else:
        low, high, p_boot = _paired_bootstrap(x, y, resamples=resamples, seed=seed)
        perm = permutation_test((x, y), _mean_difference, permutation_type="samples",
                                vectorized=True, n_resamples=resamples,
                                alternative="two-sided", rng=np.random.default_rng(seed))
        p_perm = float(perm.pvalue)
    return PairedMeans(n=n, mean_a=float(x.mean()), mean_b=float(y.mean()), diff=diff,
                       diff_low=low, diff_high=high, bootstrap_p=p_boot, permutation_p=p_perm,
                       resamples=resamples, seed=seed)


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment (statsmodels ``multipletests``) of the pairs' p-values: with
    several systems every pair is a separate test, and the adjusted p keeps the family-wise
    error at its level over all of them. Pairs without a p (None) are left out of the family."""
    from statsmodels.stats.multitest import multipletests

    present = [p for p in pvalues if p is not None]
    if not present:
        return [None] * len(pvalues)
    adjusted = iter(float(v) for v in multipletests(present, method="holm")[1])
    return [None if p is None else next(adjusted) for p in pvalues]

