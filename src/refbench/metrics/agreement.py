"""Agreement between annotators: Fleiss' kappa, Krippendorff's alpha, percent agreement,
per-item majority, and coreference agreement (MUC, B3, CEAF-e, CoNLL F1).

The statistics come from well-kept packages (statsmodels for Fleiss' kappa, ``krippendorff``
for alpha, ``scorch`` for the CoNLL coreference metrics); this module only arranges the
ratings into the shapes those packages expect and says what was left out. Ratings are
``(item, rater, label)`` triples with string labels, so every study type and a plain
``item,annotator,label`` CSV feed the same functions. The packages are imported when a figure
is computed, not when refbench starts.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

Rating = tuple[str, str, str]  # (item, rater, label)


@dataclass(frozen=True)
class KappaResult:
    """Fleiss' kappa over the items every rater of the study rated (kappa needs a constant
    number of ratings per item); ``None`` when undefined (fewer than two such items, or a single
    category, where chance agreement is 1)."""

    kappa: float | None
    n_items: int
    n_raters: int
    n_items_left_out: int


def _by_item(ratings: Iterable[Rating]) -> dict[str, dict[str, str]]:
    items: dict[str, dict[str, str]] = defaultdict(dict)
    for item, rater, label in ratings:
        items[item][rater] = label
    return items


def fleiss_kappa(ratings: Iterable[Rating]) -> KappaResult:
    """Fleiss' (1971) kappa on the items rated by the largest number of raters."""
    import numpy as np
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    items = _by_item(ratings)
    if not items:
        return KappaResult(None, 0, 0, 0)
    n_raters = max(len(r) for r in items.values())
    full = {k: v for k, v in sorted(items.items()) if len(v) == n_raters}
    categories = sorted({label for v in full.values() for label in v.values()})
    left_out = len(items) - len(full)
    if n_raters < 2 or len(full) < 2 or len(categories) < 2:
        return KappaResult(None, len(full), n_raters, left_out)
    index = {c: j for j, c in enumerate(categories)}
    table = np.zeros((len(full), len(categories)))
    for i, labels in enumerate(full.values()):
        for label in labels.values():
            table[i, index[label]] += 1
    kappa = float(sm_fleiss(table, method="fleiss"))
    return KappaResult(None if math.isnan(kappa) else kappa, len(full), n_raters, left_out)


def krippendorff_alpha(ratings: Iterable[Rating], *,
                       missing: Collection[str] = ()) -> float | None:
    """Krippendorff's alpha (nominal), any number of raters per item; labels in ``missing``
    count as not rated. ``None`` when undefined (fewer than two values in the data)."""
    import krippendorff
    import numpy as np

    kept = [(i, r, lab) for i, r, lab in ratings if lab not in missing]
    raters = sorted({r for _, r, _ in kept})
    items = sorted({i for i, _, _ in kept})
    values = sorted({lab for _, _, lab in kept})
    if len(values) < 2 or len(items) < 1 or len(raters) < 2:
        return None
    r_index = {r: k for k, r in enumerate(raters)}
    i_index = {i: k for k, i in enumerate(items)}
    v_index = {v: float(k) for k, v in enumerate(values)}
    data = np.full((len(raters), len(items)), np.nan)
    for item, rater, label in kept:
        data[r_index[rater], i_index[item]] = v_index[label]
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    if not pairable.any():
        return None
    alpha = float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    return None if math.isnan(alpha) else alpha


def percent_agreement(ratings: Iterable[Rating]) -> tuple[float | None, int]:
    """Mean over items (with two or more ratings) of the share of rater pairs that agree:
    Fleiss' P-bar when every item has the same raters. Returns (agreement, items used)."""
    shares = []
    for labels in _by_item(ratings).values():
        n = len(labels)
        if n < 2:
            continue
        agreeing = sum(c * (c - 1) for c in Counter(labels.values()).values())
        shares.append(agreeing / (n * (n - 1)))
    return (sum(shares) / len(shares) if shares else None), len(shares)


def majority(ratings: Iterable[Rating]) -> dict[str, str | None]:
    """Each item's most frequent label; ``None`` when the top labels tie."""
    out: dict[str, str | None] = {}
    for item, labels in sorted(_by_item(ratings).items()):
        top = Counter(labels.values()).most_common()
        out[item] = top[0][0] if len(top) == 1 or top[0][1] > top[1][1] else None
    return out


def categorical_agreement(ratings: Sequence[Rating], *,
                          missing: Collection[str] = ()) -> dict[str, Any]:
    """Every categorical figure at once, as a JSON-ready dict."""
    kappa = fleiss_kappa(ratings)
    pa, pa_items = percent_agreement(ratings)
    out: dict[str, Any] = {
        "n_ratings": len(ratings),
        "n_items": len({i for i, _, _ in ratings}),
        "n_raters": len({r for _, r, _ in ratings}),
        "fleiss_kappa": kappa.kappa,
        "fleiss_items": kappa.n_items,
        "fleiss_raters": kappa.n_raters,
        "fleiss_items_left_out": kappa.n_items_left_out,
        "krippendorff_alpha": krippendorff_alpha(ratings),
        "percent_agreement": pa,
        "percent_agreement_items": pa_items,
    }
    if missing:
        out["krippendorff_alpha_missing"] = krippendorff_alpha(ratings, missing=missing)
        out["missing_labels"] = sorted(missing)
    return out


def coref_agreement(key: Sequence[Collection[str]],
                    response: Sequence[Collection[str]]) -> dict[str, float]:
    """MUC, B3 and CEAF-e recall / precision / F1 and the CoNLL F1 (their mean F1) of one
    clustering against another, from ``scorch``. Mentions are any hashable ids; to score
    several documents at once (micro-averaged, as the CoNLL scorer does), prefix mention ids
    with the document id and pass every document's clusters together."""
    from scorch import scores

    k = [set(c) for c in key if c]
    r = [set(c) for c in response if c]
    out: dict[str, float] = {}
    for name, metric in (("muc", scores.muc), ("b3", scores.b_cubed),
                         ("ceafe", scores.ceaf_e)):
        rec, prec, f1 = metric(k, r)
        out[f"{name}_recall"], out[f"{name}_precision"], out[f"{name}_f1"] = (
            float(rec), float(prec), float(f1))
    out["conll_f1"] = (out["muc_f1"] + out["b3_f1"] + out["ceafe_f1"]) / 3
    return out
