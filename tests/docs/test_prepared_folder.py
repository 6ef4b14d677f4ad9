"""The folder the doc-command and help-example tests share (tests/docs/conftest.py)."""

from __future__ import annotations

import pytest

from tests.conftest import SHARED
from tests.docs.conftest import Prepared, share_embeddings


def test_sentence_encoders_share_the_memo_only_while_asked(prepared_folder: Prepared) -> None:
    """Outside the tests that ask for the memo an encoder starts empty; inside, every encoder
    of one ``max_length`` holds the same memo, which outlives the test."""
    from refbench.nlp.encoder import SentenceEncoder

    assert SentenceEncoder()._cache == {}
    with pytest.MonkeyPatch.context() as mp:
        share_embeddings(prepared_folder, mp)
        memo = prepared_folder.embeddings
        a, b, c = SentenceEncoder(), SentenceEncoder(), SentenceEncoder(max_length=128)
        a._cache["a text"] = "its embedding"
        assert b._cache is a._cache is memo[256] and c._cache is memo[128]
        assert "a text" not in c._cache
    assert SentenceEncoder()._cache == {}  # the test over: encoders are their own again
    assert prepared_folder.embeddings[256]["a text"] == "its embedding"
    del prepared_folder.embeddings[256]["a text"]
    if SHARED.is_dir():
        assert (prepared_folder.root / "shared").resolve() == SHARED.resolve()
        assert (prepared_folder.data / "winograd").is_dir()


def test_each_test_gets_a_fresh_folder_beside_shared(prepared_folder: Prepared) -> None:
    first, second = prepared_folder.fresh("probe-work"), prepared_folder.fresh("probe-work")
    assert first != second and first.parent == second.parent == prepared_folder.root
    assert not any(first.iterdir()) and not any(second.iterdir())
