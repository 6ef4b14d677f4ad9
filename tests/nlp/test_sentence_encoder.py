"""The sentence encoder's text handling (:mod:`refbench.nlp.encoder`): mean pooling over the
real tokens only, one embedding per distinct text (repeats and a second call cost nothing), the
input order kept, and similarity as the cosine of L2-normalised embeddings. A stand-in
tokenizer and model make the numbers hand-workable; MiniLM itself is not needed."""

from __future__ import annotations

from typing import Any

import pytest

from refbench.nlp import encoder
from refbench.nlp.encoder import SentenceEncoder, mean_pool

torch = pytest.importorskip("torch")


def test_mean_pool_ignores_padding() -> None:
    hidden = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [100.0, -100.0]],
                           [[5.0, 0.0], [7.0, 7.0], [9.0, 1.0]]])
    mask = torch.tensor([[1, 1, 0], [1, 1, 1]])
    first, second = mean_pool(hidden, mask).tolist()
    assert first == [2.0, 3.0]  # the padded (100, -100) is left out
    assert second == pytest.approx([7.0, 8.0 / 3.0])


class _Tokens(dict[str, Any]):
    pass


class _Tokenizer:
    """One token per character, padded with zeros: ``a`` is 1, ``b`` is 2."""

    def __call__(self, texts: list[str], **_: Any) -> _Tokens:
        width = max(len(t) for t in texts)
        ids = [[ord(c) - 96 for c in t] + [0] * (width - len(t)) for t in texts]
        mask = [[1] * len(t) + [0] * (width - len(t)) for t in texts]
        return _Tokens(input_ids=torch.tensor(ids), attention_mask=torch.tensor(mask))


class _Model:
    """Token ``k`` becomes the vector (k, 1); every batch it sees is kept."""

    def __init__(self) -> None:
        self.batches: list[list[list[int]]] = []

    def __call__(self, input_ids: Any, attention_mask: Any) -> Any:
        self.batches.append(input_ids.tolist())
        hidden = torch.stack([input_ids.float(), torch.ones_like(input_ids).float()], dim=-1)

        class Out:
            last_hidden_state = hidden
        return Out()


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> _Model:
    model = _Model()
    monkeypatch.setattr(encoder, "load_minilm", lambda path=None: (_Tokenizer(), model))
    return model


def test_each_distinct_text_is_embedded_once_in_order(stand_in: _Model) -> None:
    enc = SentenceEncoder(batch_size=2)
    emb = enc.encode(["c", "ab", "c", "d"])
    # three distinct texts, in first-seen order, two a batch
    assert stand_in.batches == [[[3, 0], [1, 2]], [[4]]]
    # "ab": tokens (1, 1) and (2, 1) pool to (1.5, 1), normalised by its length sqrt(3.25)
    assert emb[1].tolist() == pytest.approx([1.5 / 3.25 ** 0.5, 1 / 3.25 ** 0.5])
    assert emb[0].tolist() == emb[2].tolist() == pytest.approx([3 / 10 ** 0.5, 1 / 10 ** 0.5])
    enc.encode(["ab", "d"])
    assert len(stand_in.batches) == 2  # both cached: nothing new embedded
    enc.clear()
    enc.encode(["d"])
    assert len(stand_in.batches) == 3


def test_similarity_is_the_cosine(stand_in: _Model) -> None:
    enc = SentenceEncoder()
    # "a" is (1, 1), "c" is (3, 1), "aa" is (1, 1) again: cosines 1 and 4 / sqrt(2 * 10)
    assert enc.similarity("a", ["aa", "c"]) == pytest.approx([1.0, 4 / 20 ** 0.5])
