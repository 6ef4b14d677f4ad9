"""Models from the user's own session: a :class:`refbench.api.ChoiceModel` instance or
subclass, or a plain function, run by ``refbench.run(model, data)`` as any registered model is.

A function takes one instance and returns the chosen candidate's index or one score per
candidate (``batch=True``: it takes a list of instances and returns one such answer per
instance). A model gets a system identity: ``system=`` or the object's qualified name. Its
fingerprint is stable across Python processes only when the user says which version of the
code it is (``version=``): the qualified name, the version and the options that change scores.
Without ``version=`` the code may have been edited since the last run, so its predictions are
never read from nor written to the prediction cache (``cacheable = False``; the run records
``not cached: unversioned code``).

Whatever the user's code does wrong (raises, returns the wrong type or the wrong number of
scores, hangs past ``timeout`` seconds on an instance) is one
:class:`refbench.api.RefbenchError` naming the instance and what was expected. The batches
predicted before it stay in the cache (with ``version=``), so a run with the fixed code
resumes: an unbatched function is called in batches of one, so it loses only the failing
instance.
"""

from __future__ import annotations

import hashlib
import marshal
import numbers
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, argmax
from refbench.tasks.base import Task

#: What a run records instead of caching a model whose code has no version.
UNVERSIONED = "not cached: unversioned code"
#: Instances per call of a batched function (``batch=True``) unless ``batch_size=`` says.
FUNCTION_BATCH = 64


def qualified_name(obj: Any) -> str:
    """``module.qualname`` of a function or class (of an instance: its class)."""
    target = obj if callable(obj) and hasattr(obj, "__qualname__") else type(obj)
    return f"{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', '?')}"


def _code_hash(obj: Any) -> str:
    """A hash of a function's (or a class's ``predict``'s) bytecode: in the identity of
    unversioned code, so that edited code is a different system in the store."""
    target = getattr(obj, "predict", obj) if not hasattr(obj, "__code__") else obj
    code = getattr(target, "__code__", None)
    if code is None:
        return "?"
    try:
        return hashlib.sha256(marshal.dumps(code)).hexdigest()[:12]
    except ValueError:  # a code object marshal cannot write
        return "?"


class UserModel(ChoiceModel):
    """A function or a ChoiceModel object of the user's, as a ChoiceModel with a system
    identity, checked outputs, a per-instance ``timeout`` and, with ``version``, a cache key.
    Built by :func:`user_model`."""

    def __init__(self, target: Callable[..., Any] | ChoiceModel, *, name: str,
                 code: str, version: str | None, batch: bool = False,
                 batch_size: int | None = None, timeout: float | None = None) -> None:
        super().__init__(None)
        self.target = target
        self.inner = target if isinstance(target, ChoiceModel) else None
        self.fn: Callable[..., Any] = target.predict if isinstance(target, ChoiceModel) \
            else target
        self.name = name
        self.code = code
        self.user_version = version
        self.batch = batch
        self.timeout = timeout
        self.cacheable = version is not None
        if self.inner is not None:
            self.batch_size = batch_size or self.inner.batch_size
            object.__setattr__(self, "LM_EVAL_HASHES", self.inner.LM_EVAL_HASHES)
        else:
            self.batch_size = (batch_size or FUNCTION_BATCH) if batch else 1
        self._code_hash = _code_hash(target if self.inner is None else type(target))

    def owner(self) -> str:
        return f"model {self.name}"

    def config(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "code": self.code,
                               "version": self.user_version}
        if self.inner is not None:
            out["model"] = self.inner.config()
        else:
            out["batch"] = self.batch
            if self.batch:  # a batched function may score a batch as a whole
                out["batch_size"] = self.batch_size
        if self.user_version is None:
            out["cache"] = UNVERSIONED
            out["code_hash"] = self._code_hash
        return out

    def prepare(self, data_path: str | Path | None, task: Task) -> None:
        if self.inner is not None:
            self.inner.prepare(data_path, task)

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        if self.inner is not None:
            got = self._call(self.inner.predict, list(batch), batch)
            return self._model_outputs(batch, got)
        if self.batch:
            got = self._call(self.fn, list(batch), batch)
            if not isinstance(got, list | tuple) or len(got) != len(batch):
                what = f"{len(got)} answers" if isinstance(got, list | tuple) \
                    else f"a {type(got).__name__}"
                raise RefbenchError(f"{self.what()} returned {what} for a batch of "
                                    f"{len(batch)} instances; expected a list of one answer "
                                    "per instance", item=_ids(batch))
            return [self._output(inst, a) for inst, a in zip(batch, got, strict=True)]
        return [self._output(inst, self._call(self.fn, inst, [inst])) for inst in batch]

    def what(self) -> str:
        kind = "model" if self.inner is not None else "function"
        return f"{kind} {self.code}"

    def _call(self, fn: Callable[..., Any], arg: Any, batch: Sequence[ChoiceInstance]) -> Any:
        """``fn(arg)``, its exceptions and a hang past the timeout as one error naming the
        instances."""
        if self.timeout is None:
            try:
                return fn(arg)
            except RefbenchError:
                raise
            except Exception as exc:
                raise self._raised(exc, batch) from exc
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["value"] = fn(arg)
            except BaseException as exc:  # handed to the caller's thread
                box["error"] = exc

        limit = self.timeout * len(batch)
        worker = threading.Thread(target=work, name=f"refbench {self.name}", daemon=True)
        worker.start()
        worker.join(limit)
        if worker.is_alive():
            raise RefbenchError(f"{self.what()} gave no answer within {limit:g} s "
                                f"(timeout={self.timeout:g} s per instance); it may still be "
                                "running in the background", item=_ids(batch))
        if "error" in box:
            failed: BaseException = box["error"]
            if isinstance(failed, RefbenchError | KeyboardInterrupt):
                raise failed
            raise self._raised(failed, batch) from failed
        return box["value"]

    def _raised(self, exc: BaseException, batch: Sequence[ChoiceInstance]) -> RefbenchError:
        text = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        return RefbenchError(f"{self.what()} raised {type(exc).__name__}"
                             + (f": {text}" if text else "")
                             + " (predictions of the batches before it are kept"
                             + (" in the cache: a run with the same version= resumes)"
                                if self.cacheable else "; give version= to cache them)"),
                             item=_ids(batch))

    def _output(self, inst: ChoiceInstance, got: Any) -> ModelOutput:
        """A function's answer for ``inst`` (an index, scores, or a ModelOutput) as an output."""
        n = len(inst.candidates)
        if isinstance(got, ModelOutput):
            return self._model_outputs([inst], [got])[0]
        if isinstance(got, numbers.Integral) and not isinstance(got, bool):
            k = int(got)
            if not 0 <= k < n:
                raise RefbenchError(f"{self.what()} returned {k}; expected a candidate index "
                                    f"0-{n - 1}", item=inst.id)
            return ModelOutput(k, tuple(1.0 if j == k else 0.0 for j in range(n)))
        if isinstance(got, str | bytes | dict) or not hasattr(got, "__len__") \
                or not hasattr(got, "__iter__"):
            raise RefbenchError(f"{self.what()} returned {_shown(got)}; expected a candidate "
                                f"index 0-{n - 1} or {n} scores (one per candidate)",
                                item=inst.id)
        values = list(got)
        if len(values) != n:
            raise RefbenchError(f"{self.what()} returned {len(values)} scores; expected {n} "
                                "(one per candidate)", item=inst.id)
        scores = []
        for j, v in enumerate(values):
            if not isinstance(v, numbers.Real) or isinstance(v, bool):
                raise RefbenchError(f"{self.what()} returned scores whose [{j}] is "
                                    f"{_shown(v)}; expected numbers", item=inst.id)
            scores.append(float(v))
        return ModelOutput(argmax(scores), tuple(scores))

    def _model_outputs(self, batch: Sequence[ChoiceInstance], got: Any) -> list[ModelOutput]:
        """A model's outputs, checked: one ModelOutput per instance, answers that are
        candidate indexes, numeric scores."""
        if not isinstance(got, list | tuple) or len(got) != len(batch):
            what = f"{len(got)} outputs" if isinstance(got, list | tuple) \
                else f"a {type(got).__name__}"
            raise RefbenchError(f"{self.what()}: predict returned {what} for a batch of "
                                f"{len(batch)}; expected a list of one ModelOutput per instance",
                                item=_ids(batch))
        for inst, out in zip(batch, got, strict=True):
            if not isinstance(out, ModelOutput):
                raise RefbenchError(f"{self.what()}: predict's output is a "
                                    f"{type(out).__name__}; expected a ModelOutput",
                                    item=inst.id)
            a = out.answer
            if a is not None and (not isinstance(a, numbers.Integral) or isinstance(a, bool)
                                  or not 0 <= a < len(inst.candidates)):
                raise RefbenchError(f"{self.what()}: answer {a!r} is not a candidate index "
                                    f"0-{len(inst.candidates) - 1} or None", item=inst.id)
            if not all(isinstance(s, numbers.Real) and not isinstance(s, bool)
                       for s in out.scores):
                raise RefbenchError(f"{self.what()}: scores {_shown(out.scores)} are not all "
                                    "numbers", item=inst.id)
        return list(got)


def _ids(batch: Sequence[ChoiceInstance]) -> str:
    if len(batch) == 1:
        return batch[0].id
    return f"one of {batch[0].id} .. {batch[-1].id}"


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"


def _registered(obj: ChoiceModel) -> bool:
    """Whether ``obj`` is an object of one of refbench's own models (the class its registry
    names ``obj.name``, built with ``build_model`` or by hand): then its fingerprint names all
    it computes, as its spec's does. A plugin's class run as an object is the session's code,
    cached only with ``version=`` like any other."""
    from refbench.core.errors import RefbenchError
    from refbench.core.registry import BUILTIN, MODELS
    from refbench.models.base import model_class

    try:
        return MODELS.get(obj.name).origin == BUILTIN and type(obj) is model_class(obj.name)
    except RefbenchError:
        return False


def user_model(obj: Any, *, system: str | None = None, version: str | int | None = None,
               batch: bool = False, batch_size: int | None = None,
               timeout: float | None = None, **options: Any) -> ChoiceModel:
    """``obj`` (a ChoiceModel instance, a ChoiceModel subclass built with ``options``, or a
    function of an instance, of a list of them with ``batch=True``) as a model of a run.
    ``version``: the code's version, which makes its predictions cacheable (and a run
    resumable); ``timeout``: seconds an instance may take."""
    if isinstance(obj, UserModel):
        return obj
    if isinstance(obj, ChoiceModel) and _registered(obj) and not (
            options or batch or batch_size is not None or timeout is not None):
        return obj  # a registered model's object: its config is its identity, as its spec's
    if timeout is not None and (isinstance(timeout, bool)
                                or not isinstance(timeout, numbers.Real) or timeout <= 0):
        raise UsageError(f"timeout={timeout!r}: expected a number of seconds > 0")
    if batch_size is not None and (isinstance(batch_size, bool)
                                   or not isinstance(batch_size, int) or batch_size < 1):
        raise UsageError(f"batch_size={batch_size!r}: expected a positive whole number")
    if version is not None and (isinstance(version, bool)
                                or not isinstance(version, str | int) or str(version) == ""):
        raise UsageError(f"version={version!r}: expected a text or a number naming the "
                         "code's version")
    if isinstance(obj, type) and issubclass(obj, ChoiceModel):
        obj = obj(None, **options)
        options = {}
    elif isinstance(obj, type) or (not callable(obj) and not isinstance(obj, ChoiceModel)):
        raise UsageError(f"model={_shown(obj)}: expected a model name, a refbench.api."
                         "ChoiceModel (subclass or instance) or a function of an instance")
    if options:
        raise UsageError(f"options {', '.join(sorted(options))} are for a model name or a "
                         "ChoiceModel subclass, not for "
                         f"{'a function' if not isinstance(obj, ChoiceModel) else 'an instance'}")
    if version is None:
        version = getattr(obj, "user_version", None)  # an adapter's own (models.loglik)
    if isinstance(obj, ChoiceModel):
        own = obj.name if obj.name != ChoiceModel.name else type(obj).__qualname__
        if batch:
            raise UsageError("batch=True is for a function; a ChoiceModel's predict takes "
                             "batches already")
        return UserModel(obj, name=system or own, code=qualified_name(obj),
                         version=None if version is None else str(version),
                         batch_size=batch_size, timeout=timeout)
    own_name = str(getattr(obj, "__qualname__", type(obj).__qualname__))
    return UserModel(obj, name=system or own_name,
                     code=qualified_name(obj), version=None if version is None else str(version),
                     batch=bool(batch), batch_size=batch_size, timeout=float(timeout)
                     if timeout is not None else None)
