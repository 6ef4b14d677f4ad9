"""Any language model the user's session holds, scoring every choice task as ``llm-loglik``
does: :func:`loglik` wraps a log-likelihood function, :func:`from_transformers` a loaded
``transformers`` causal LM and its tokenizer.

Both are subclasses of :class:`~refbench.models.llm.LoglikModel` that keep its ``predict``:
the same requests per task (:func:`~refbench.models.llm.scoring_requests`: each candidate in
place of a pronoun or blank and the rest of the sentence scored, or a free-text question with
the candidate's name as its answer), the same answer (the highest summed log-probability) and
the same ``answer_norm`` (per character of the scored text). The transformers adapter also
splits, truncates and batches as ``llm-loglik`` does (it sets the attributes that
``LoglikModel`` loads from a path), so on the same weights it gives ``llm-loglik``'s answers.
A function adapter is handed whole ``(context, continuation)`` texts and cuts nothing itself;
what it returns is the summed log-probability of each continuation.

``name=`` is the system's name; ``version=`` makes its predictions cacheable across sessions
(as for any model of the session: :mod:`refbench.models.user`).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.models.llm import LoglikModel, context_length
from refbench.models.llm_server import Scored
from refbench.models.user import qualified_name

#: The options of ``llm-loglik`` that mean something without a path or a server.
_IN_PROCESS = ("max_length", "batch_size", "device", "scoring")
LoglikFn = Callable[[list[tuple[str, str]]], Sequence[float]]


def _options(*names: str) -> tuple[Any, ...]:
    return tuple(o for o in LoglikModel.OPTIONS if o.name in names)


class FunctionLoglik(LoglikModel):
    """``llm-loglik``'s requests and normalisations over the user's function
    ``f(requests) -> list[float]`` (a summed log-probability per (context, continuation))."""

    OPTIONS = _options("scoring")

    def __init__(self, fn: LoglikFn, *, name: str | None = None,
                 version: str | int | None = None, batch_size: int | None = None,
                 **options: Any) -> None:
        if not callable(fn):
            raise UsageError(f"loglik(f): f is a {type(fn).__name__}, not a function of a "
                             "list of (context, continuation) pairs")
        super(LoglikModel, self).__init__(None, **options)
        self.fn = fn
        self.name = name or str(getattr(fn, "__qualname__", "loglik"))
        self.code = qualified_name(fn)
        self.user_version = None if version is None else str(version)
        self.server = None
        if batch_size is not None:
            self.batch_size = int(batch_size)

    def config(self) -> dict[str, Any]:
        return {"name": self.name, "code": self.code, "loglik": "function",
                "split": self.SPLIT, **self._scoring()}

    def loglik(self, requests: Sequence[tuple[str, str]]) -> list[Scored]:
        got = self.fn(list(requests))
        if not hasattr(got, "__len__") or isinstance(got, str | bytes | dict) \
                or len(got) != len(requests):
            what = f"{len(got)} values" if hasattr(got, "__len__") else type(got).__name__
            raise RefbenchError(f"loglik function {self.code} returned {what} for "
                                f"{len(requests)} requests; expected one log-probability "
                                "(a number) per (context, continuation)")
        out: list[Scored] = []
        for k, ((_, cont), value) in enumerate(zip(requests, got, strict=True)):
            if not isinstance(value, numbers.Real) or isinstance(value, bool):
                raise RefbenchError(f"loglik function {self.code} returned {value!r} for "
                                    f"request {k} ({cont[:40]!r}); expected a number")
            out.append(Scored(float(value), len(cont), 0))
        return out


class TransformersLoglik(LoglikModel):
    """``llm-loglik`` over a ``transformers`` causal LM and its tokenizer that the session has
    already loaded (on whatever device it is; ``device=`` moves it)."""

    OPTIONS = _options(*_IN_PROCESS)

    def __init__(self, model: Any, tokenizer: Any, *, name: str | None = None,
                 version: str | int | None = None, **options: Any) -> None:
        import inspect

        if not callable(getattr(model, "forward", None)) or not callable(tokenizer):
            raise UsageError("from_transformers(model, tokenizer): expected a transformers "
                             "causal LM (AutoModelForCausalLM) and its tokenizer")
        super(LoglikModel, self).__init__(None, **options)
        self.server = None
        self.model = model
        self.tokenizer = tokenizer
        self.forward_batch = int(self.option("batch_size"))
        if "device" in self.options:
            from refbench.core.device import resolve_device

            self.device = resolve_device(str(self.option("device")))
            self.model.to(self.device)
        else:
            self.device = next(iter(model.parameters())).device
        given = self.option("max_length")
        self.max_length = int(given) if given is not None else context_length(
            getattr(model, "config", None), tokenizer)
        where = getattr(getattr(model, "config", None), "_name_or_path", "") or "?"
        self.name = name or str(where).rstrip("/").rsplit("/", 1)[-1] or type(model).__name__
        self.user_version = None if version is None else str(version)
        self._weights = f"{type(model).__name__}:{str(where).rstrip('/').rsplit('/', 1)[-1]}"
        self.model.eval()
        self._keeps_logits = "logits_to_keep" in inspect.signature(model.forward).parameters


def loglik(fn: LoglikFn, *, name: str | None = None, version: str | int | None = None,
           batch_size: int | None = None, **options: Any) -> FunctionLoglik:
    """A model of the session from ``fn(requests) -> list[float]``: the summed log-probability
    of each continuation given its context, for a list of ``(context, continuation)`` pairs.
    It scores every choice task with ``llm-loglik``'s requests and normalisations; pass it to
    ``refbench.run``. ``batch_size``: instances per call (each brings one request per
    candidate); ``scoring="whole"`` as ``llm-loglik``'s option."""
    return FunctionLoglik(fn, name=name, version=version, batch_size=batch_size, **options)


def from_transformers(model: Any, tokenizer: Any, *, name: str | None = None,
                      version: str | int | None = None, **options: Any) -> TransformersLoglik:
    """``llm-loglik`` over a loaded ``transformers`` causal LM and its tokenizer: the same
    requests, token splitting, truncation, batching and normalisations, so the same weights
    give the same answers. ``options``: ``llm-loglik``'s ``max_length``, ``batch_size``
    (sequences per forward pass), ``device`` and ``scoring``."""
    return TransformersLoglik(model, tokenizer, name=name, version=version, **options)
