"""The bootstrap's short cuts give the figures the plain resampling gives, to the last bit."""

from __future__ import annotations

import random

import numpy as np
import pytest

from refbench.metrics.bootstrap import accuracy_stat, bootstrap_cis, f1_stat
from tests.conftest import python_prints

STATS = {"pronoun_accuracy": accuracy_stat, "antecedent_f1": f1_stat}


def plain(columns: dict[str, list[int]], *, resamples: int, seed: int
          ) -> dict[str, tuple[float, float]]:
    """The resampling as first written: one gather per column, no packing, no short cut."""
    n = len(columns["correct"])
    idx = np.random.default_rng(seed).integers(0, n, size=(resamples, n), dtype=np.int32)
    sums = {k: np.asarray(v, dtype=np.int64)[idx].sum(axis=1).astype(float)
            for k, v in columns.items()}
    alpha = (1 - 0.95) / 2  # as the module computes it (not exactly 0.025)
    out = {}
    for name, stat in STATS.items():
        lo, hi = np.quantile(stat(sums, n), [alpha, 1 - alpha])
        out[name] = (float(lo), float(hi))
    return out


def columns(n: int, rng: random.Random, *, constant: bool = False) -> dict[str, list[int]]:
    cols: dict[str, list[int]] = {"correct": [], "tp": [], "fp": [], "fn": []}
    for _ in range(n):
        tp = 1 if constant else rng.randint(0, 1)
        fp = 0 if constant else rng.randint(0, 3)
        cols["correct"].append(int(tp == 1 and fp == 0))
        cols["tp"].append(tp)
        cols["fp"].append(fp)
        cols["fn"].append(1 - tp)
    return cols


@pytest.mark.parametrize("n", [1, 7, 200, 2000])
def test_packed_sums_match_plain_resampling(n: int) -> None:
    cols = columns(n, random.Random(n))
    assert bootstrap_cis(cols, STATS, resamples=300, seed=3) == plain(cols, resamples=300,
                                                                     seed=3)


def test_wide_counts_fall_back_and_match() -> None:
    rng = random.Random(1)
    cols = {k: [rng.randint(0, 2**20) for _ in range(50)] for k in ("correct", "tp", "fp", "fn")}
    assert bootstrap_cis(cols, STATS, resamples=100, seed=0) == plain(cols, resamples=100,
                                                                     seed=0)


@pytest.mark.parametrize("right", [True, False])
def test_constant_instances_give_the_point_without_numpy(right: bool) -> None:
    cols = columns(500, random.Random(0), constant=True)
    if not right:
        cols = {"correct": [0] * 500, "tp": [0] * 500, "fp": [1] * 500, "fn": [1] * 500}
    assert bootstrap_cis(cols, STATS, resamples=200, seed=5) == plain(cols, resamples=200, seed=5)
    probe = ("import sys; from refbench.metrics.bootstrap import bootstrap_cis, accuracy_stat, "
             "f1_stat; c={'correct':[1]*9,'tp':[1]*9,'fp':[0]*9,'fn':[0]*9}; "
             "print(bootstrap_cis(c, {'a': accuracy_stat, 'f': f1_stat}), "
             "'numpy' in sys.modules)")
    assert python_prints(probe) == "{'a': (1.0, 1.0), 'f': (1.0, 1.0)} False"
