"""What a dataset card says about a benchmark: name, licence (a Hub identifier), how it was
annotated, and what to cite. The task knows it (``Task.pretty_name``, ``licence``,
``citation``, ``bibtex``, ``source``, ``source_datasets``, ``annotations_creators``,
``card_notes``); this module only reads it, so a task added later brings its own card. A task
that records no licence gets a card that says the licence is unknown rather than guessing one.

Licences follow the releases (see ``../shared/data/README.md``): CC BY-SA data stays
share-alike in any export.
"""

from __future__ import annotations

from dataclasses import dataclass

from refbench.tasks.base import Task


@dataclass(frozen=True)
class Card:
    pretty_name: str
    license: str  # a Hugging Face Hub licence identifier
    annotations_creators: tuple[str, ...]
    source: str  # where the release comes from
    citation: str
    notes: str = ""
    bibtex: str = ""
    source_datasets: tuple[str, ...] = ("original",)


UNKNOWN_NOTE = "The licence is not recorded in refbench: state it before publishing."


def card_for(task: Task) -> Card:
    """The card of ``task``, from its class attributes."""
    return Card(task.pretty_name or task.title or task.name, task.licence or "unknown",
                tuple(task.annotations_creators), task.source or "unknown",
                task.citation or "See the benchmark's paper.",
                task.card_notes or ("" if task.licence else UNKNOWN_NOTE),
                task.bibtex, tuple(task.source_datasets))


def size_category(n: int) -> str:
    """The Hub's ``size_categories`` bucket for ``n`` rows."""
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "1M<n<10M"
