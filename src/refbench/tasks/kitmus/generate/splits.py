"""Disjoint train/validation/test partitions of every resource pool, fixed by the seed.

Each pool is shuffled with its own RNG, seeded by ``(seed, pool name)``, so the partition of one
pool never depends on which other pools, variants or subtasks are generated. Pools with fewer
than three items cannot be split and are shared by all splits; that is reported in stats.json,
except for names and occupations (:data:`NEVER_SHARED`), where it is an error.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from refbench.tasks.kitmus.instance import SPLITS

T = TypeVar("T")

FRACTIONS = {"train": 0.45, "validation": 0.10, "test": 0.45}


# Pools whose items make an instance's identity: never shared between splits (a suite whose
# splits share names or occupation rows leaks test entities into training), so a pool of
# these too small to split is an error, not a note.
NEVER_SHARED = ("names", "occupations")


def split_sizes(k: int) -> dict[str, int]:
    """How many of a pool's ``k`` items each split gets (``k`` each when it is shared)."""
    if k < len(SPLITS):
        return {s: k for s in SPLITS}
    n_train = max(1, round(k * FRACTIONS["train"]))
    n_val = max(1, round(k * FRACTIONS["validation"]))
    if n_train + n_val >= k:
        n_train = k - n_val - 1
    return {"train": n_train, "validation": n_val, "test": k - n_train - n_val}


def minimum_pool(n: int, split: str) -> int:
    """The fewest items a pool needs so that ``split`` gets ``n`` of its own."""
    k = len(SPLITS)
    while split_sizes(k)[split] < n:
        k += 1
    return k


def partition(items: Sequence[T], *, seed: int, pool: str) -> tuple[dict[str, list[T]], bool]:
    """Return ``({split: items}, shared)``; ``shared`` is True when the pool is too small."""
    if len(items) < len(SPLITS):
        return {s: list(items) for s in SPLITS}, True
    order = list(range(len(items)))
    random.Random(f"kitmus-split:{seed}:{pool}").shuffle(order)
    sizes = split_sizes(len(items))
    n_train, n_val = sizes["train"], sizes["validation"]
    cut = {"train": order[:n_train], "validation": order[n_train:n_train + n_val],
           "test": order[n_train + n_val:]}
    return {s: [items[i] for i in sorted(idx)] for s, idx in cut.items()}, False
