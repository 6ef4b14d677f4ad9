"""The spread of figures across prompt templates, checked against hand-worked numbers."""

from __future__ import annotations

import pytest

from refbench.reporting.template_spread import kendall_tau, template_spread


def test_kendall_tau_by_hand() -> None:
    assert kendall_tau([1, 2, 3], [1, 2, 3]) == 1.0
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    # pairs (0,1) concordant, (0,2) concordant, (1,2) discordant: (2 - 1) / 3
    assert kendall_tau([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)
    assert kendall_tau([1, 1, 1], [1, 2, 3]) is None


def test_template_spread_by_hand() -> None:
    scores = {"substitution": {"a": 0.5, "b": 0.7, "c": 0.6},
              "question": {"a": 0.3, "b": 0.5, "c": 0.4},
              "options": {"a": 0.4, "b": 0.6, "c": 0.8}}
    got = template_spread(scores)
    assert got["items"]["c"] == pytest.approx({"mean": 0.6, "min": 0.4, "max": 0.8,
                                               "spread": 0.4})
    assert got["template_mean"]["question"] == pytest.approx(0.4)
    # substitution~question: tau 1; each with options: (a,b) +, (a,c) +, (b,c) -: 1/3
    assert got["rank_stability_tau"] == pytest.approx((1 + 1 / 3 + 1 / 3) / 3)
    assert got["same_best"] is False
