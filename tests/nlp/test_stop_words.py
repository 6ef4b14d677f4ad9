"""The stop words that word-overlap evidence ignores (:mod:`refbench.nlp.stopwords`): every
pronoun the pronoun benchmarks ask about, neopronouns included, and no content word."""

from __future__ import annotations

from refbench.models.text import content_words
from refbench.nlp.stopwords import STOP


def test_every_benchmark_pronoun_is_a_stop_word() -> None:
    # Winogender's and WinoBias' pronouns, and the neopronouns Winogender's templates add
    pronouns = {"he", "she", "they", "his", "her", "their", "him", "them",
                "ey", "em", "eir", "ze", "zir"}
    assert pronouns <= STOP


def test_content_words_are_not_stop_words() -> None:
    for word in ("nurse", "doctor", "knowledge", "judge", "paid", "bakery", "he's"):
        assert word not in STOP
    assert all(w == w.lower() and w.strip() == w and w for w in STOP)


def test_overlap_evidence_keeps_only_content_words() -> None:
    assert content_words("The nurse told her that she was paid by the judge") == {
        "nurse", "told", "paid", "judge"}
