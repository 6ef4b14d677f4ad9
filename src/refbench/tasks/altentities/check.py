"""``refbench altentities check``: statistics per file (Table 5-like) and leakage between splits.

Leakage: the same entity (Wikipedia URL, else name) as a choice in two splits. The released dev
and test files of recipes and songs share some entities; they are listed, not hidden.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from refbench.tasks.altentities.read import read_questions

_SPLIT = re.compile(r"(train|dev|validation|test)", re.IGNORECASE)


def split_of(path: Path) -> str:
    m = _SPLIT.search(path.name)
    return m.group(1).lower() if m else path.name


def load_questions(path: str | Path) -> list[dict[str, Any]]:
    """The questions of a file, each checked as the reader checks it (a KnowRef file or a
    target_index of 5 is an error naming the question)."""
    return [q.raw for q in read_questions(path)]


def entity_key(choice: dict[str, Any]) -> str:
    return str(choice.get("wikipedia_url") or choice.get("name"))


def check_files(paths: list[Path]) -> dict[str, Any]:
    files = []
    entities: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    names: dict[str, str] = {}
    for p in paths:
        qs = load_questions(p)
        domains: Counter[str] = Counter()
        methods: Counter[str] = Counter()
        n_expr = 0
        words = 0
        for q in qs:
            domain = str(q.get("domain", "?")).upper()
            domains[domain] += 1
            methods[str(q.get("sampling_method", "?"))] += 1
            exprs = q.get("expressions", [])
            n_expr += len(exprs)
            words += sum(len(str(e).split()) for e in exprs)
            for c in q.get("choices", []):
                key = entity_key(c)
                names[key] = str(c.get("name", key))
                entities[domain][key].add(split_of(p))
        files.append({
            "file": str(p), "split": split_of(p), "questions": len(qs), "expressions": n_expr,
            "expressions_per_question": round(n_expr / len(qs), 2) if qs else 0.0,
            "words_per_expression": round(words / n_expr, 2) if n_expr else 0.0,
            "domains": dict(sorted(domains.items())),
            "sampling_methods": dict(sorted(methods.items())),
        })
    leakage: dict[str, Any] = {}
    for domain, ents in sorted(entities.items()):
        shared = sorted(k for k, splits in ents.items() if len(splits) > 1)
        if shared:
            pairs: Counter[str] = Counter("/".join(sorted(ents[k])) for k in shared)
            leakage[domain] = {"entities": len(shared), "by_splits": dict(pairs),
                               "examples": [names[k] for k in shared[:10]]}
    return {"files": files, "leakage": leakage,
            "entities": {d: len(e) for d, e in sorted(entities.items())}}
