"""What every choice model provides, and how a model is built from its registry name.

A model spec is ``name`` or ``name:argument`` (a checkpoint folder, a model path, an endpoint
model name); further options come as ``key=value`` pairs, which each model declares in
``OPTIONS`` (name, type, default, bounds) and reads back typed with :meth:`ChoiceModel.option`:
an undeclared key or a value of the wrong type is a usage error before anything runs. A model's
fingerprint names everything its predictions depend on, and keys the prediction cache.
"""

from __future__ import annotations

import hashlib
import json
import numbers
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from refbench.core.options import Configured, Option, parse_options
from refbench.core.registry import Entry
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import Task


@dataclass(frozen=True)
class ModelOutput:
    answer: int | None  # candidate index, or None (abstain / no decision)
    scores: tuple[float, ...]
    explanation: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"answer": self.answer, "scores": list(self.scores)}
        if self.explanation:
            out["explanation"] = list(self.explanation)
        if self.extra:
            out["extra"] = self.extra
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> ModelOutput:
        """An output as :meth:`to_json` wrote it (the cache, a run's predictions)."""
        return cls(obj["answer"], tuple(obj["scores"]), tuple(obj.get("explanation", ())),
                   obj.get("extra", {}))


class ChoiceModel(Configured, ABC):
    """Scores the candidates of choice instances; ``predict`` works on batches."""

    name: str = "model"
    #: The one line ``refbench ls`` shows for the model (a plugin's model sets it; refbench's
    #: own models have theirs in the registry).
    summary: ClassVar[str] = ""
    #: The model's version in refbench (``name.vN`` names it; bumped when the same spec and
    #: options would score differently).
    version: ClassVar[int] = 1
    batch_size: int = 64
    OPTIONS: ClassVar[tuple[Option, ...]] = ()  # the --model-arg keys this model accepts
    # Whether the model scores the requests an lm-eval export holds, so that its predictions
    # carry lm-eval's per-document hashes (doc_hash, prompt_hash, target_hash).
    LM_EVAL_HASHES: ClassVar[bool] = False

    def owner(self) -> str:
        return f"model {self.name}"

    def config(self) -> dict[str, Any]:
        return {"name": self.name, "argument": self.argument, "options": self.options}

    def fingerprint(self) -> str:
        blob = json.dumps(self.config(), sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:24]

    @classmethod
    def reader_defaults(cls, argument: str | None) -> dict[str, Any]:
        """The task reader options a run of ``name:argument`` uses unless others are given
        (a trained model: how its training data was read, so test texts are read alike)."""
        return {}

    def prepare(self, data_path: str | Path | None, task: Task) -> None:
        """Called once before predicting (e.g. to read an external system's output)."""

    @abstractmethod
    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        """One output per instance, in order."""


def argmax(scores: Sequence[float]) -> int | None:
    """Index of the highest score, lowest index on ties; None for no candidates."""
    if not scores:
        return None
    best = 0
    for i, s in enumerate(scores):
        if s > scores[best]:
            best = i
    return best


def file_fingerprint(path: str | Path) -> str:
    """Cheap content identity of a weights file or folder (sizes and names, plus a head hash)."""
    p = Path(path)
    h = hashlib.sha256()
    files = sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p]
    for q in files:
        h.update(f"{q.relative_to(p) if p.is_dir() else q.name}:{q.stat().st_size}".encode())
        with q.open("rb") as fh:
            h.update(fh.read(1 << 16))
    return h.hexdigest()[:16]


def model_class(spec: str) -> type[ChoiceModel]:
    """The class a spec names (``name``, ``name.vN`` or either with ``:argument``), from the
    model registry (refbench's models and the plugins' ``refbench.models`` entry points)."""
    from refbench.core.registry import MODELS

    return _model_class(MODELS.get(spec.partition(":")[0]), spec.partition(":")[0])


def _model_class(entry: Entry, name: str) -> type[ChoiceModel]:
    from refbench.core.registry import MODELS, PluginError

    cls = MODELS.load(name)
    if not (isinstance(cls, type) and issubclass(cls, ChoiceModel)):
        raise PluginError(entry.broken("it is not a refbench.api.ChoiceModel subclass"))
    options = cls.__dict__.get("OPTIONS", cls.OPTIONS)
    if not isinstance(options, tuple | list):
        raise PluginError(entry.broken(f"its OPTIONS is a {type(options).__name__}, not a "
                                       "tuple of refbench.api.Option"))
    for k, option in enumerate(options):
        if not isinstance(option, Option):
            raise PluginError(entry.broken(f"its OPTIONS[{k}] is a {type(option).__name__}, "
                                           "not a refbench.api.Option"))
    return cls


def check_model_options(spec: str, options: dict[str, Any] | None) -> dict[str, Any]:
    """The options typed and checked against the model's declaration, before any work starts
    (an unknown key or a bad value is a usage error naming it)."""
    cls = model_class(spec)
    return parse_options(f"model {cls.name}", cls.OPTIONS, options or {})


def trained_reader_options(spec: str) -> dict[str, Any]:
    """The reader options the model ``spec`` runs with by default
    (:meth:`ChoiceModel.reader_defaults`; a trained cross-encoder's are its training data's)."""
    return model_class(spec).reader_defaults(spec.partition(":")[2] or None)


def build_model(spec: str, options: dict[str, Any] | None = None) -> ChoiceModel:
    """``name`` or ``name:argument`` from the model registry, plus ``key=value`` options. A
    plugin's model is built and called through :mod:`refbench.core.plugin_guard`; every
    model's ``predict`` is checked (:func:`checked_outputs`)."""
    from refbench.core.plugin_guard import call, guard
    from refbench.core.registry import MODELS

    name, _, argument = spec.partition(":")
    entry = MODELS.get(name)
    cls = _model_class(entry, name)
    model: ChoiceModel = call(entry, f"{cls.__name__}(...)", cls, argument or None,
                              **(options or {}))
    if not isinstance(model, ChoiceModel):  # a __new__ that returns something else
        from refbench.core.registry import PluginError

        raise PluginError(entry.failed(f"{cls.__name__}(...) built a "
                                       f"{type(model).__name__}, not a ChoiceModel"))
    guard(model, entry)
    predict = model.predict

    def checked(batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        return checked_outputs(entry, batch, predict(batch))

    object.__setattr__(model, "predict", checked)
    return model


def checked_outputs(entry: Entry, batch: Sequence[ChoiceInstance], outputs: Any
                    ) -> list[ModelOutput]:
    """``outputs`` when it is one :class:`ModelOutput` per instance of ``batch`` with an
    answer that is a candidate index (or None) and numeric scores; else one error naming the
    model (and its plugin) and what is wrong."""
    from refbench.core.registry import BUILTIN, PluginError

    def bad(what: str) -> PluginError:
        if entry.origin == BUILTIN:
            return PluginError(f"model {entry.name}: {what}")
        return PluginError(entry.failed(what))

    if not isinstance(outputs, list | tuple):
        raise bad(f"predict returned {type(outputs).__name__ if outputs is not None else 'None'}"
                  ", not a list of ModelOutput (one per instance)")
    if len(outputs) != len(batch):
        raise bad(f"predict returned {len(outputs)} outputs for a batch of {len(batch)} "
                  "instances; expected one per instance, in order")
    for k, (inst, out) in enumerate(zip(batch, outputs, strict=True), 1):
        if not isinstance(out, ModelOutput):
            raise bad(f"predict's output {k} is a {type(out).__name__}, not a ModelOutput "
                      f"(instance {inst.id})")
        answer = out.answer
        if answer is not None and (not isinstance(answer, numbers.Integral)
                                   or isinstance(answer, bool)
                                   or not 0 <= answer < len(inst.candidates)):
            raise bad(f"predict's output {k}: answer {answer!r} is not a candidate index "
                      f"0-{len(inst.candidates) - 1} or None (instance {inst.id})")
        if not isinstance(out.scores, tuple | list):
            raise bad(f"predict's output {k}: scores is a {type(out.scores).__name__}, not a "
                      f"tuple of numbers (instance {inst.id})")
        for j, score in enumerate(out.scores):
            if not isinstance(score, numbers.Real) or isinstance(score, bool):
                raise bad(f"predict's output {k}: scores[{j}] {score!r} is not a number "
                          f"(instance {inst.id})")
    return list(outputs)
