"""Paired significance and intervals against the libraries' own figures and hand-worked cases."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest, bootstrap

from refbench.metrics.intervals import wilson
from refbench.metrics.paired import paired_test


def test_mcnemar_is_the_exact_binomial_test_on_discordant_pairs() -> None:
    # 30 items: 12 both right, 9 only A, 2 only B, 7 both wrong
    a = [1] * 12 + [1] * 9 + [0] * 2 + [0] * 7
    b = [1] * 12 + [0] * 9 + [1] * 2 + [0] * 7
    r = paired_test(a, b, resamples=500)
    assert r is not None
    assert (r.both_correct, r.only_a, r.only_b, r.both_wrong) == (12, 9, 2, 7)
    assert r.mcnemar_p == pytest.approx(binomtest(2, 11, 0.5).pvalue)
    assert r.mcnemar_p == pytest.approx(0.06543, abs=1e-5)  # 2 * P(X <= 2), X ~ Bin(11, 1/2)
    assert r.diff == pytest.approx(7 / 30)


def test_paired_bootstrap_is_seeded_and_matches_scipy() -> None:
    rng = np.random.default_rng(3)
    a = (rng.random(400) < 0.7).astype(int).tolist()
    b = (rng.random(400) < 0.6).astype(int).tolist()
    r1 = paired_test(a, b, resamples=1000, seed=7)
    r2 = paired_test(a, b, resamples=1000, seed=7)
    assert r1 == r2
    ref = bootstrap((np.array(a), np.array(b)), lambda x, y, axis=-1: x.mean(axis) - y.mean(axis),
                    paired=True, n_resamples=1000, method="percentile",
                    rng=np.random.default_rng(7))
    assert r1 is not None
    assert (r1.diff_low, r1.diff_high) == pytest.approx(
        (ref.confidence_interval.low, ref.confidence_interval.high), abs=0.01)
    assert r1.diff_low < r1.diff < r1.diff_high
    assert 0 < r1.bootstrap_p <= 1


def test_identical_systems_and_empty_input() -> None:
    r = paired_test([1, 0, 1], [1, 0, 1])
    assert r is not None and r.mcnemar_p == 1.0 and r.bootstrap_p == 1.0 and r.diff == 0
    assert paired_test([], []) is None
    with pytest.raises(ValueError):
        paired_test([1], [1, 0])


def test_bootstrap_p_is_never_zero() -> None:
    r = paired_test([1] * 50, [0] * 50, resamples=200)
    assert r is not None and r.bootstrap_p == pytest.approx(2 / 201)


def test_wilson() -> None:
    low, high = wilson(2, 3) or (0.0, 0.0)
    assert (round(low, 3), round(high, 3)) == (0.208, 0.939)
    assert wilson(0, 0) is None


def test_bootstrap_p_at_its_floor_reads_below_two_over_b() -> None:
    from refbench.web.templating import bootstrap_pvalue

    r = paired_test([1] * 50, [0] * 50, resamples=1000)
    assert r is not None and bootstrap_pvalue(r.bootstrap_p, r.resamples) == "< 0.002"
    assert bootstrap_pvalue(2 / 201, 200) == "< 0.01"
    assert bootstrap_pvalue(0.0312, 1000) == "0.0312"
    assert bootstrap_pvalue(None, 1000) == "–"


def test_holm_leaves_untested_pairs_out_of_the_family() -> None:
    from refbench.metrics.paired import holm

    assert holm([0.01, None, 0.04]) == [pytest.approx(0.02), None, pytest.approx(0.04)]
    assert holm([None]) == [None]


def test_paired_means_test_on_document_scores() -> None:
    from refbench.metrics.paired import paired_means_test

    a = [0.9, 0.8, 0.7, 0.95, 0.85, 0.6, 0.75, 0.9]
    b = [0.5, 0.6, 0.4, 0.7, 0.6, 0.3, 0.5, 0.6]
    r = paired_means_test(a, b)
    assert r is not None and r.diff == pytest.approx(sum(a) / 8 - sum(b) / 8)
    assert 0 < r.diff_low < r.diff < r.diff_high
    # every difference is positive: the exact sign-flip test (2**8 flips) gives 2 / 256
    assert r.permutation_p == pytest.approx(2 / 256)
    same = paired_means_test([0.5, 0.5], [0.5, 0.5])
    assert same is not None and same.permutation_p == 1.0 and same.bootstrap_p == 1.0
    assert paired_means_test([], []) is None


def test_one_mcnemar_for_the_pair_and_the_matrix_cells() -> None:
    from refbench.metrics.binomial import mcnemar_exact_p

    # the compare page's matrix cells and paired_test call the same function
    assert mcnemar_exact_p(9, 2) == pytest.approx(binomtest(2, 11, 0.5).pvalue)
    assert mcnemar_exact_p(0, 0) == 1.0
