"""95% intervals of GAP's F1 and bias (F/M): a seeded percentile bootstrap over the gold
examples, stratified by the pronoun's gender (each resample keeps the number of masculine and
of feminine examples, so the bias ratio is always a ratio of the same two populations). F1 and
a ratio of F1s have no closed-form interval; the resamples recount the scorer's own
true/false positives and negatives (:func:`refbench.tasks.gap.score.score_gap_system`)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from refbench.formats.gap_tsv import GapRow
from refbench.metrics.prf import PRF

RESAMPLES = 1000
SEED = 0


def _counts(row: GapRow, system: tuple[bool | None, bool | None]) -> tuple[int, int, int]:
    """(tp, fp, fn) of one example, as the scorer counts it (no system row: two misses)."""
    prf = PRF()
    for g, s in ((row.a_coref, system[0]), (row.b_coref, system[1])):
        if s is None:
            prf.fn += 1
        else:
            prf.add(bool(g), s)
    return prf.tp, prf.fp, prf.fn


def _f1(c: np.ndarray) -> np.ndarray:
    """F1 of summed (tp, fp, fn) counts along the last axis (0 where undefined)."""
    tp, fp, fn = c[..., 0], c[..., 1], c[..., 2]
    denom = 2 * tp + fp + fn
    return np.where(denom > 0, 2 * tp / np.maximum(denom, 1), 0.0)


def f1_bias_intervals(gold: Iterable[GapRow], genders: dict[str, str],
                      system: dict[str, tuple[bool | None, bool | None]], *,
                      resamples: int = RESAMPLES, seed: int = SEED
                      ) -> dict[str, list[float]]:
    """``{"f1": [low, high], "bias": [low, high]}`` (bias left out when a resample has no
    masculine F1)."""
    strata: dict[str, list[tuple[int, int, int]]] = {}
    for row in gold:
        strata.setdefault(genders[row.id], []).append(
            _counts(row, system.get(row.id, (None, None))))
    if not strata:
        return {}
    rng = np.random.default_rng(seed)
    total = np.zeros((resamples, 3))
    by: dict[str, np.ndarray] = {}
    for name in sorted(strata):
        counts = np.asarray(strata[name], dtype=float)
        picks = rng.integers(0, len(counts), size=(resamples, len(counts)))
        summed = counts[picks].sum(axis=1)
        by[name] = summed
        total += summed
    out = {"f1": [float(x) for x in np.percentile(_f1(total), [2.5, 97.5])]}
    if "masculine" in by and "feminine" in by:
        f_m, f_f = _f1(by["masculine"]), _f1(by["feminine"])
        if np.all(f_m > 0):
            out["bias"] = [float(x) for x in np.percentile(f_f / f_m, [2.5, 97.5])]
    return out
