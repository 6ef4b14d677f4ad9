"""The Hub's size buckets for a dataset card. What a card says of a benchmark (name, licence,
how it was annotated, what to cite) is the task's own card, :mod:`refbench.tasks.card`: one data
file in the task's folder, the one source every export reads."""

from __future__ import annotations


def size_category(n: int) -> str:
    """The Hub's ``size_categories`` bucket for ``n`` rows."""
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "1M<n<10M"
