"""How much a figure is the template's: the mean, the spread (min–max) and the rank stability
of the same systems (or subtasks) scored with several prompt templates.

``scores[template][item]`` is one accuracy (an item is a system, or a subtask of one system).
Rank stability is Kendall's tau-b between every two templates' orderings of the items, averaged
over the pairs (1: every template ranks the items alike; 0: no agreement), and how often the
templates agree on the best item.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any


def kendall_tau(a: list[float], b: list[float]) -> float | None:
    """Kendall's tau-b of two paired lists (ties handled); None when either is constant."""
    concordant = discordant = ties_a = ties_b = 0
    for i, j in combinations(range(len(a)), 2):
        da, db = a[i] - a[j], b[i] - b[j]
        if da == 0 and db == 0:
            continue
        if da == 0:
            ties_a += 1
        elif db == 0:
            ties_b += 1
        elif (da > 0) == (db > 0):
            concordant += 1
        else:
            discordant += 1
    n_a = concordant + discordant + ties_a
    n_b = concordant + discordant + ties_b
    if n_a == 0 or n_b == 0:
        return None
    return float((concordant - discordant) / (n_a * n_b) ** 0.5)


def template_spread(scores: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """Per item: mean, min, max and spread over the templates; per template: the mean over the
    items; and the rank stability of the items across templates (items every template
    scored only)."""
    templates = list(scores)
    items = [i for i in scores[templates[0]] if all(i in scores[t] for t in templates)] \
        if templates else []
    per_item = {}
    for item in items:
        values = [scores[t][item] for t in templates]
        per_item[item] = {"mean": sum(values) / len(values), "min": min(values),
                          "max": max(values), "spread": max(values) - min(values)}
    taus = [kendall_tau([scores[s][i] for i in items], [scores[t][i] for i in items])
            for s, t in combinations(templates, 2)]
    known = [t for t in taus if t is not None]
    best = [max(items, key=lambda i: (scores[t][i], i)) for t in templates]
    return {"templates": templates, "items": per_item,
            "template_mean": {t: sum(scores[t][i] for i in items) / len(items) if items else None
                              for t in templates},
            "rank_stability_tau": sum(known) / len(known) if known else None,
            "same_best": bool(best) and len(set(best)) == 1}
