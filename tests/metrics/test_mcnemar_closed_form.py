"""McNemar's exact p in closed form agrees with statsmodels' (the compare page's matrix uses
it so that the page does not import statsmodels and SciPy)."""

from __future__ import annotations

import random

import pytest

from refbench.metrics.binomial import EXACT_UP_TO, mcnemar_exact_p


def test_agrees_with_statsmodels_exact_and_float_paths() -> None:
    tables = pytest.importorskip("statsmodels.stats.contingency_tables")
    rng = random.Random(43)
    pairs = [(a, b) for a in range(40) for b in range(40)]
    pairs += [(a, max(0, a + rng.randint(-300, 300)))
              for a in (rng.randint(0, 30000) for _ in range(300))]
    assert any(a + b > EXACT_UP_TO for a, b in pairs)
    for a, b in pairs:
        want = float(tables.mcnemar([[3, a], [b, 9]], exact=True).pvalue)
        got = mcnemar_exact_p(a, b)
        assert got == pytest.approx(want, rel=1e-8, abs=1e-300), (a, b)
        assert f"{got:.4f}" == f"{want:.4f}"  # as the page shows it


def test_edges() -> None:
    assert mcnemar_exact_p(0, 0) == 1.0
    assert mcnemar_exact_p(2, 9) == pytest.approx(0.06543, abs=1e-5)  # 2 * P(Bin(11, .5) <= 2)
    with pytest.raises(ValueError):
        mcnemar_exact_p(-1, 3)
