"""Seeded percentile bootstrap over instances.

Per-instance count vectors are resampled with replacement (one shared set of resamples for all
statistics); each resample's statistic is computed from the summed counts, so F1 is recomputed
rather than averaged. Same seed, same intervals.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Sums = Mapping[str, NDArray[np.float64]]
    Array = NDArray[np.float64]
else:
    Sums = Mapping[str, Any]
    Array = Any

Stat = Callable[[Sums, int], Array]


def bootstrap_cis(
    columns: Mapping[str, Sequence[int]],
    statistics: Mapping[str, Stat],
    *,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, tuple[float, float]]:
    """Percentile intervals of several statistics over the same resampled instances.

    ``columns`` holds one small integer per instance in each array; each statistic receives the
    column sums of every resample (arrays of length ``resamples``) and the number of instances.
    """
    n = len(next(iter(columns.values()))) if columns else 0
    if n == 0 or resamples <= 0:
        return {name: (float("nan"), float("nan")) for name in statistics}
    import numpy as np  # only when intervals are asked for: it is most of the start-up time

    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n), dtype=np.int32)
    sums = {k: np.asarray(v, dtype=np.int8)[idx].sum(axis=1, dtype=np.int64).astype(float)
            for k, v in columns.items()}
    alpha = (1 - level) / 2
    out = {}
    for name, stat in statistics.items():
        lo, hi = np.quantile(stat(sums, n), [alpha, 1 - alpha])
        out[name] = (float(lo), float(hi))
    return out


def accuracy_stat(sums: Sums, n: int) -> Array:
    return sums["correct"] / n


def f1_stat(sums: Sums, n: int) -> Array:
    import numpy as np

    tp, fp, fn = sums["tp"], sums["fp"], sums["fn"]
    p = np.divide(tp, tp + fp, out=np.zeros_like(tp), where=(tp + fp) > 0)
    r = np.divide(tp, tp + fn, out=np.zeros_like(tp), where=(tp + fn) > 0)
    f1: Array = np.divide(2 * p * r, p + r, out=np.zeros_like(p), where=(p + r) > 0)
    return f1
