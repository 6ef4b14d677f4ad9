"""Seeded percentile bootstrap over instances.

Per-instance count vectors are resampled with replacement (one shared set of resamples for all
statistics); each resample's statistic is computed from the summed counts, so F1 is recomputed
rather than averaged. Same seed, same intervals. When every instance counts the same (a perfect
run), every resample does too: the interval is the point value, found without drawing (or
importing numpy); a statistic then receives floats instead of arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Sums = Mapping[str, NDArray[np.float64] | float]
    Array = NDArray[np.float64] | float
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
    if all(len(set(v)) == 1 for v in columns.values()):
        # every instance counts the same (a perfect run, say): every resample sums to the same
        # counts, so each interval is the point value; no draws, no numpy
        points = {k: float(v[0] * n) for k, v in columns.items()}
        out = {}
        for name, stat in statistics.items():
            value = float(stat(points, n))
            out[name] = (value, value)
        return out
    import numpy as np  # only when intervals are asked for: it is most of the start-up time

    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n), dtype=np.int32)
    sums = _resampled_sums(columns, idx)
    alpha = (1 - level) / 2
    out = {}
    for name, stat in statistics.items():
        lo, hi = np.quantile(stat(sums, n), [alpha, 1 - alpha])
        out[name] = (float(lo), float(hi))
    return out


def _resampled_sums(columns: Mapping[str, Sequence[int]], idx: Any) -> dict[str, Array]:
    """Each column's sum over each resample (a row of ``idx``). Small non-negative counts are
    packed into one 64-bit integer per instance, so one gather and one sum serve all columns."""
    import numpy as np

    n = idx.shape[1]
    top = max(max(v) for v in columns.values())
    low = min(min(v) for v in columns.values())
    width = (int(top) * n).bit_length()
    if low < 0 or width * len(columns) > 63:
        return {k: np.asarray(v, dtype=np.int64)[idx].sum(axis=1).astype(float)
                for k, v in columns.items()}
    packed = np.zeros(n, dtype=np.int64)
    for j, v in enumerate(columns.values()):
        packed += np.asarray(v, dtype=np.int64) << (j * width)
    totals = packed[idx].sum(axis=1)
    mask = (1 << width) - 1
    return {k: ((totals >> (j * width)) & mask).astype(float) for j, k in enumerate(columns)}


def accuracy_stat(sums: Sums, n: int) -> Array:
    return sums["correct"] / n


def f1_stat(sums: Sums, n: int) -> Array:
    tp, fp, fn = sums["tp"], sums["fp"], sums["fn"]
    if isinstance(tp, float):  # one point (every resample the same): the same IEEE arithmetic
        p = tp / (tp + fp) if tp + fp > 0 else 0.0
        r = tp / (tp + fn) if tp + fn > 0 else 0.0
        return 2 * p * r / (p + r) if p + r > 0 else 0.0
    import numpy as np

    p = np.divide(tp, tp + fp, out=np.zeros_like(tp), where=(tp + fp) > 0)
    r = np.divide(tp, tp + fn, out=np.zeros_like(tp), where=(tp + fn) > 0)
    f1: Array = np.divide(2 * p * r, p + r, out=np.zeros_like(p), where=(p + r) > 0)
    return f1
