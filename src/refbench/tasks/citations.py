"""What to cite for each task's data, for exported task folders (lm-eval, Hugging Face)."""

from __future__ import annotations

from refbench.tasks.kitmus.datasheet import KITMUS_BIBTEX

CITATIONS: dict[str, str] = {
    "kitmus": KITMUS_BIBTEX,
    "winograd": """@inproceedings{levesque-etal-2012-winograd,
    title = "The {W}inograd Schema Challenge",
    author = "Levesque, Hector J. and Davis, Ernest and Morgenstern, Leora",
    booktitle = "Proceedings of the Thirteenth International Conference on Principles of
                 Knowledge Representation and Reasoning",
    year = "2012",
}
@inproceedings{sakaguchi-etal-2020-winogrande,
    title = "{W}ino{G}rande: An Adversarial {W}inograd Schema Challenge at Scale",
    author = "Sakaguchi, Keisuke and Le Bras, Ronan and Bhagavatula, Chandra and Choi, Yejin",
    booktitle = "Proceedings of AAAI",
    year = "2020",
}""",
    "knowref": """@inproceedings{emami-etal-2019-knowref,
    title = "The {K}now{R}ef Coreference Corpus: Removing Gender and Number Cues for Difficult
             Pronominal Anaphora Resolution",
    author = "Emami, Ali and Trichelair, Paul and Trischler, Adam and Suleman, Kaheer and
              Schulz, Hannes and Cheung, Jackie Chi Kit",
    booktitle = "Proceedings of ACL",
    year = "2019",
}""",
    "gap": """@article{webster-etal-2018-mind,
    title = "Mind the {GAP}: A Balanced Corpus of Gendered Ambiguous Pronouns",
    author = "Webster, Kellie and Recasens, Marta and Axelrod, Vera and Baldridge, Jason",
    journal = "Transactions of the Association for Computational Linguistics",
    volume = "6",
    year = "2018",
}""",
    "altentities": """@inproceedings{hosseini-etal-2023-resolving,
    title = "Resolving Indirect Referring Expressions for Entity Selection",
    author = "Hosseini, Mohammad Javad and Radlinski, Filip and Pareti, Silvia and
              Louis, Annie",
    booktitle = "Proceedings of ACL",
    year = "2023",
}""",
}


def citation(task: str) -> str | None:
    """The BibTeX for a task's data, or None when refbench does not know it."""
    return CITATIONS.get(task)
