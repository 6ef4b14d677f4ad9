"""Agreement statistics against hand-worked examples from the literature and by hand."""

from __future__ import annotations

import pytest

from refbench.metrics.agreement import (
    categorical_agreement,
    coref_agreement,
    fleiss_kappa,
    krippendorff_alpha,
    majority,
    percent_agreement,
)

# Fleiss (1971), as on Wikipedia: 10 subjects, 14 raters, 5 categories; kappa = 0.210
# (P-bar = 0.378, P-bar-e = 0.213). Rows: counts per category.
FLEISS = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
          [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]


def fleiss_ratings() -> list[tuple[str, str, str]]:
    out = []
    for i, row in enumerate(FLEISS):
        rater = 0
        for cat, count in enumerate(row):
            for _ in range(count):
                out.append((f"s{i}", f"r{rater}", f"c{cat}"))
                rater += 1
    return out


def test_fleiss_classic_example() -> None:
    res = fleiss_kappa(fleiss_ratings())
    assert res.kappa == pytest.approx(0.2099, abs=1e-4)
    assert round(res.kappa, 3) == 0.210
    assert (res.n_items, res.n_raters, res.n_items_left_out) == (10, 14, 0)
    pa, n = percent_agreement(fleiss_ratings())
    # P-bar: mean over subjects of sum n_ij (n_ij - 1) / (14 * 13); by hand 0.378.
    assert n == 10 and pa == pytest.approx(0.3780, abs=1e-4)


# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 4 observers x 12 units
# example with missing values: nominal alpha = 0.743.
KRIPP = ["1 2 3 3 2 1 4 1 2 . . .", "1 2 3 3 2 2 4 1 2 5 . 3",
         ". 3 3 3 2 3 4 2 2 5 1 .", "1 2 3 3 2 4 4 1 2 5 1 ."]


def kripp_ratings() -> list[tuple[str, str, str]]:
    return [(f"u{j}", f"o{i}", v) for i, row in enumerate(KRIPP)
            for j, v in enumerate(row.split()) if v != "."]


def test_krippendorff_published_example() -> None:
    assert krippendorff_alpha(kripp_ratings()) == pytest.approx(0.743, abs=5e-4)


def test_cant_say_as_missing_changes_alpha_by_hand() -> None:
    # Three raters, three items. With "x" as a category: every item has a pair that disagrees.
    ratings = [("i1", "a", "A"), ("i1", "b", "A"), ("i1", "c", "x"),
               ("i2", "a", "B"), ("i2", "b", "B"), ("i2", "c", "x"),
               ("i3", "a", "A"), ("i3", "b", "A"), ("i3", "c", "A")]
    # As missing: the remaining pairable values agree perfectly, so alpha = 1 (Do = 0).
    assert krippendorff_alpha(ratings, missing={"x"}) == pytest.approx(1.0)
    # As a category: coincidences by hand. Values: A 5, B 2, x 2 (n = 9).
    # Observed disagreement Do = (i1: 2 A-x pairs of 3 ... ) -> alpha = 1 - Do/De.
    # Per item (m_u = 3, weight 1/(m_u - 1) = 1/2): i1 contributes A-x and x-A coincidences
    # 2 * 2 * 1/2 = 2 (ordered pairs A-x: a-c, b-c; x-A: c-a, c-b), i2 likewise 2 (B-x), i3 0.
    # Do = 4 / 9; De = (9*9 - (5*5 + 2*2 + 2*2)) / (9 * 8) = 48 / 72; alpha = 1 - (4/9)/(48/72)
    assert krippendorff_alpha(ratings) == pytest.approx(1 - (4 / 9) / (48 / 72))


def test_percent_agreement_and_majority_by_hand() -> None:
    ratings = [("i1", "a", "X"), ("i1", "b", "X"), ("i1", "c", "Y"),  # 1 of 3 pairs agree
               ("i2", "a", "Y"), ("i2", "b", "Y"),                    # 1 of 1
               ("i3", "a", "X"), ("i3", "b", "Y"),                    # 0 of 1 (a tie)
               ("i4", "a", "Z")]                                      # one rating: not used
    pa, n = percent_agreement(ratings)
    assert n == 3 and pa == pytest.approx((1 / 3 + 1 + 0) / 3)
    assert majority(ratings) == {"i1": "X", "i2": "Y", "i3": None, "i4": "Z"}


def test_fleiss_uses_items_every_rater_answered_and_is_none_when_undefined() -> None:
    ratings = [("i1", "a", "X"), ("i1", "b", "X"), ("i2", "a", "Y"), ("i2", "b", "X"),
               ("i3", "a", "X")]
    res = fleiss_kappa(ratings)
    assert (res.n_items, res.n_raters, res.n_items_left_out) == (2, 2, 1)
    # Two items, two raters: P-bar = (1 + 0) / 2 = 0.5; p(X) = 3/4, p(Y) = 1/4,
    # Pe = 9/16 + 1/16 = 0.625; kappa = (0.5 - 0.625) / (1 - 0.625) = -1/3.
    assert res.kappa == pytest.approx(-1 / 3)
    assert fleiss_kappa([("i1", "a", "X"), ("i1", "b", "X"), ("i2", "a", "X"),
                         ("i2", "b", "X")]).kappa is None
    assert krippendorff_alpha([("i1", "a", "X"), ("i1", "b", "X")]) is None
    assert fleiss_kappa([]).kappa is None


def test_categorical_summary_reports_both_alphas() -> None:
    out = categorical_agreement(kripp_ratings(), missing={"5"})
    assert out["krippendorff_alpha"] == pytest.approx(0.743, abs=5e-4)
    assert out["krippendorff_alpha_missing"] is not None
    assert out["missing_labels"] == ["5"]
    assert out["n_items"] == 12 and out["n_raters"] == 4


def test_coreference_metrics_hand_worked() -> None:
    # Key {a,b,c} {d,e,f,g}; response {a,b} {c,d} {f,g,h,i} (Pradhan et al. 2014's example).
    key = [{"a", "b", "c"}, {"d", "e", "f", "g"}]
    resp = [{"a", "b"}, {"c", "d"}, {"f", "g", "h", "i"}]
    s = coref_agreement(key, resp)
    # MUC: R = ((3-2) + (4-3)) / ((3-1) + (4-1)) = 2/5; P = ((2-1) + (2-2) + (4-3)) / (1+1+3).
    assert (s["muc_recall"], s["muc_precision"]) == pytest.approx((0.4, 0.4))
    # B3: R = (4/3 + 1/3 + 1/4 + 4/4) / 7 = 5/12; P = (4/2 + 1/2 + 1/2 + 4/4) / 8 = 1/2.
    assert (s["b3_recall"], s["b3_precision"]) == pytest.approx((5 / 12, 0.5))
    # CEAF-e: phi4 best alignment K1-R1 (2*2/5) + K2-R3 (2*2/8) = 1.3; R = 1.3/2, P = 1.3/3.
    assert (s["ceafe_recall"], s["ceafe_precision"]) == pytest.approx((0.65, 1.3 / 3))
    f = [2 * p * r / (p + r) for p, r in ((0.4, 0.4), (0.5, 5 / 12), (1.3 / 3, 0.65))]
    assert s["conll_f1"] == pytest.approx(sum(f) / 3)


def test_identical_clusterings_score_one_and_documents_add_up() -> None:
    doc1 = [{"d1/a", "d1/b"}, {"d1/c"}]
    doc2 = [{"d2/a"}, {"d2/b", "d2/c", "d2/d"}]
    s = coref_agreement(doc1 + doc2, doc1 + doc2)
    assert s["conll_f1"] == pytest.approx(1.0)
    assert s["muc_f1"] == s["b3_f1"] == s["ceafe_f1"] == pytest.approx(1.0)
