"""Wilson's interval in closed form: statsmodels' floats to the last bit, without statsmodels."""

from __future__ import annotations

import random

import pytest

from refbench.metrics.intervals import Z95, wilson
from tests.conftest import python_prints


def test_the_constant_is_the_normal_quantile() -> None:
    stats = pytest.importorskip("scipy.stats")
    assert float(stats.norm.isf(0.025)) == Z95


def test_same_floats_as_statsmodels() -> None:
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    rng = random.Random(43)
    cases = [(c, n) for n in range(1, 120) for c in range(n + 1)]
    cases += [(rng.randint(0, n), n) for n in (rng.randint(1, 10**7) for _ in range(2000))]
    for c, n in cases:
        low, high = proportion.proportion_confint(c, n, alpha=0.05, method="wilson")
        assert wilson(c, n) == (float(low), float(high)), (c, n)
    assert wilson(0, 0) is None


def test_no_statsmodels_import() -> None:
    probe = ("import sys; from refbench.metrics.intervals import wilson; "
             "import refbench.metrics.paired; from refbench.metrics.binomial import "
             "mcnemar_exact_p; wilson(3, 10); mcnemar_exact_p(3, 7); "
             "print(sorted(m for m in ('statsmodels', 'scipy') if m in sys.modules))")
    assert python_prints(probe) == "[]"
