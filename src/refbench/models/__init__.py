"""Choice models: heuristics, a knowledge-integration resolver, MiniLM encoders, LLMs.

Models of the user's own session: :func:`loglik` (a log-likelihood function) and
:func:`from_transformers` (a loaded ``transformers`` causal LM) score every choice task as
``llm-loglik`` does (:mod:`refbench.models.notebook_lm`); ``refbench.run`` also takes a plain
function or a ``ChoiceModel`` (:mod:`refbench.models.user`). Both are imported on first use,
so that importing one model module imports no other.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["from_transformers", "loglik"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        import importlib

        return getattr(importlib.import_module("refbench.models.notebook_lm"), name)
    raise AttributeError(f"module 'refbench.models' has no attribute {name!r}")
