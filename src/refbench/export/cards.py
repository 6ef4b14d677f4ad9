"""What a dataset card says about each benchmark: name, licence (Hub identifiers), how it was
annotated, and what to cite. Data, not logic: a task added later gets an entry here (or the
generic fallback, which says the licence is unknown rather than guessing one).

Licences follow the releases (see ``../shared/data/README.md``): CC BY-SA data stays
share-alike in any export (KnowRef, AltEntities, and a KITMUS suite drawn from the official
KITMUS resources).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Card:
    pretty_name: str
    license: str  # a Hugging Face Hub licence identifier
    annotations_creators: tuple[str, ...]
    source: str  # where the release comes from
    citation: str
    notes: str = ""


CARDS: dict[str, Card] = {
    "knowref": Card(
        "KnowRef", "cc-by-sa-3.0", ("crowdsourced",), "aemami1/KnowRef",
        "Emami, Trichelair, Trischler, Suleman, Schulz and Cheung. The KnowRef Coreference "
        "Corpus: Removing Gender and Number Cues for Difficult Pronominal Anaphora "
        "Resolution. ACL 2019.",
        "The gold answer is the candidate named by `correct_candidate`: in 299 of the 1,269 "
        "test instances the release's `correct_candidate_idx` disagrees with the names, and "
        "the names are right (`metadata.gold_source` says which field decided). A CC BY-SA "
        "3.0 derivative: share it under the same licence."),
    "altentities": Card(
        "AltEntities", "cc-by-sa-3.0", ("crowdsourced",),
        "google-research-datasets/AltEntities",
        "Hosseini, Radlinski, Pareti and Louis. Resolving Indirect Referring Expressions for "
        "Entity Selection. ACL 2023.",
        "A CC BY-SA 3.0 derivative: share it under the same licence. Recipes and songs share "
        "some entities between dev and test."),
    "tne": Card(
        "TNE (Text-based NP Enrichment)", "mit", ("expert-generated",), "yanaiela/TNE",
        "Elazar, Basmov, Goldberg and Tsarfaty. Text-based NP Enrichment. TACL 2022.",
        "Span fields are `first_char/last_char/first_token/last_token` (the release's README "
        "calls them `start_index/end_index/start_token/end_token`); `np_relations` is null "
        "for unlabelled documents."),
    "gap": Card(
        "GAP", "apache-2.0", ("crowdsourced",), "google-research-datasets/gap-coreference",
        "Webster, Recasens, Axelrod and Baldridge. Mind the GAP: A Balanced Corpus of "
        "Gendered Ambiguous Pronouns. TACL 2018."),
    "winograd": Card(
        "Winograd-style schemas", "unknown", ("expert-generated",),
        "a Winograd Schema Challenge / WinoGrande copy",
        "Levesque, Davis and Morgenstern. The Winograd Schema Challenge. KR 2012; "
        "Sakaguchi, Le Bras, Bhagavatula and Choi. WinoGrande. AAAI 2020.",
        "The licence depends on the copy exported: state it before publishing."),
    "kitmus": Card(
        "KITMUS (refbench suite)", "mit", ("machine-generated",), "refbench kitmus generate",
        "Arodi, Pömsl, Suleman, Trischler, Olteanu and Cheung. The KITMUS Test: Evaluating "
        "Knowledge Integration from Multiple Sources. ACL 2023."),
}

# A KITMUS suite's licence follows the resources it was drawn from (stats.json).
KITMUS_LICENCES = {"builtin": "mit", "official": "cc-by-sa-3.0"}


def card_for(task: str) -> Card:
    """The card of ``task``; a task without an entry gets one that states what is unknown."""
    return CARDS.get(task) or Card(task, "unknown", ("found",), "unknown",
                                   "See the benchmark's paper.",
                                   "The licence is not recorded in refbench: state it before "
                                   "publishing.")


def size_category(n: int) -> str:
    """The Hub's ``size_categories`` bucket for ``n`` rows."""
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "1M<n<10M"
