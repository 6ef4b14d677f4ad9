"""One result: what a run (or an evaluation) scored, of which system, on which data and how much
of it. ``metrics.json`` is a :class:`Result`'s serialisation (:meth:`Result.to_json`); every
``metrics.json`` refbench has written since its first runner reads back through
:meth:`Result.from_json` (files without a ``schema`` field are migrated).

The rules every producer and consumer follows are written here, once:

- **Which system.** A system is its model spec and fingerprint; its display name is only a label
  (:func:`system_of` is the one answer to "which system is this", for a run folder, a
  predictions file or a metrics mapping).
- **Partial results.** A result over part of its data (``--limit``, a shard, lm-eval's
  ``--limit``, missing predictions) is scored over the instances it covers, always shown with
  "n of N" and "partial" (:meth:`Coverage.text`), and never averaged with, ranked against or
  compared to complete results (:func:`complete_and_partial`).
- **Names.** Two fingerprints are never merged under one display name: :func:`name_clash` finds
  them and :func:`refuse_name_clash` refuses in one line naming both models.
- **Data.** A result scored against gold whose sha256 differs from the data its run recorded
  is said so in one line (:func:`gold_mismatch`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.identity import (
    BY_LIMIT,
    BY_LM_EVAL_LIMIT,
    BY_MISSING,
    BY_SHARD,
    METRICS_FILE,
    Coverage,
    DataIdentity,
    SystemIdentity,
    coverage_of,
    data_display_name,
    data_identity,
    data_sha256,
    run_metrics_beside,
    system_of,
)
from refbench.core.seal import check_record

__all__ = ["BY_LIMIT", "BY_LM_EVAL_LIMIT", "BY_MISSING", "BY_SHARD", "METRICS_FILE",
           "SCHEMA_VERSION", "Coverage", "DataIdentity", "Figure", "IntervalMethod",
           "Provenance", "Result", "SystemIdentity", "complete_and_partial", "coverage_of",
           "data_display_name", "data_identity", "data_sha256", "gold_mismatch", "name_clash",
           "names_apart", "refuse_name_clash", "run_identity", "run_metrics_beside",
           "run_place", "system_of"]

#: The version of ``metrics.json`` this module writes. Files without a ``schema`` field were
#: written before the Result type (version 1) and are migrated by :meth:`Result.from_json`.
SCHEMA_VERSION = 2

# Keys of metrics.json that the typed fields stand for; everything else is the task's details.
_IDENTITY_KEYS = ("schema", "task", "task_version", "model", "model_fingerprint", "system",
                  "data", "data_sha256", "data_name", "split", "n", "data_coverage",
                  "coverage_of", "partial_by", "provenance", "created", "interval_method")
# Top-level numbers that are counts or settings, not figures.
_NOT_FIGURES = frozenset({"n", "n_with_gold", "n_no_answer", "n_missing", "n_extra",
                          "n_cached", "uncached_batches", "n_entities", "limit", "task_version",
                          "n_truncated", "max_truncated_tokens", "truncated_instances",
                          "n_skipped", "schema", "run_id", "coverage_of"})


@dataclass(frozen=True)
class Figure:
    """One figure (a fraction unless its task says otherwise) and its interval, if any."""

    name: str
    value: float | None
    interval: tuple[float, float] | None = None


@dataclass(frozen=True)
class IntervalMethod:
    """How a result's intervals were made: ``bootstrap`` (percentile, ``resamples`` resamples
    with ``seed``) unless a task says otherwise; ``per_figure`` names figures made otherwise."""

    name: str = "bootstrap"
    resamples: int | None = None
    seed: int | None = None
    per_figure: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Provenance:
    """Where a result came from (lm-eval's ``result_schema`` in spirit)."""

    refbench_version: str | None = None
    git_hash: str | None = None
    command: str | None = None
    time: str | None = None
    created: str | None = None


@dataclass(frozen=True)
class Result:
    """One scored result. ``details`` holds the task's own fields of ``metrics.json`` (slices,
    decisions, cells, warnings) verbatim, for the task's tables; everything that says what the
    result is of and how much of it is typed."""

    task: str
    system: SystemIdentity
    data: DataIdentity
    coverage: Coverage
    figures: tuple[Figure, ...] = ()
    interval_method: IntervalMethod | None = None
    task_version: int | None = None
    provenance: Provenance = field(default_factory=Provenance)
    details: Mapping[str, Any] = field(default_factory=dict)
    schema: int = SCHEMA_VERSION

    # -- reading ---------------------------------------------------------------------------
    def figure(self, name: str) -> Figure | None:
        return next((f for f in self.figures if f.name == name), None)

    def value(self, name: str) -> float | None:
        f = self.figure(name)
        return None if f is None else f.value

    @property
    def is_partial(self) -> bool:
        return self.coverage.is_partial

    @property
    def key(self) -> tuple[str, tuple[str | None, str | None, str | None],
                           tuple[str, str | None]]:
        """What the result is of: (task, data key, system key); never a path or a name."""
        return self.task, self.data.key, self.system.key

    def label(self) -> str:
        """``S on subtask_2_ents/test.jsonl, test split (partial: 1 of 2 instances, --limit)``."""
        split = f", {self.data.split} split" if self.data.split else ""
        return f"{self.system.name} on {self.data.name}{split}{self.coverage.note()}"

    def with_coverage(self, coverage: Coverage) -> Result:
        return replace(self, coverage=coverage)

    def summary(self) -> dict[str, Any]:
        """What ``--json`` prints of a result, the same in ``evaluate``, ``report`` and the
        web app: identities, coverage and figures with their intervals."""
        c = self.coverage
        return {"task": self.task, "task_version": self.task_version,
                "system": self.system.name, "model": self.system.model,
                "model_fingerprint": self.system.fingerprint,
                "data": self.data.path, "data_name": self.data.name,
                "data_sha256": self.data.sha256, "split": self.data.split,
                "coverage": {"n": c.n, "of": c.of, "by": list(c.by),
                             "partial": c.is_partial},
                "figures": {f.name: f.value for f in self.figures},
                "intervals": {f.name: list(f.interval) for f in self.figures
                              if f.interval is not None},
                "interval_method": self.interval_method.name if self.interval_method else None}

    # -- metrics.json ----------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """``metrics.json``: the task's details with the typed fields under the keys every
        earlier version wrote (so older readers still read it), plus ``schema``."""
        out: dict[str, Any] = dict(self.details)
        for f in self.figures:
            out[f.name] = f.value
        ci = dict(out.get("ci95") or {})
        for f in self.figures:
            if f.interval is not None:
                ci[f.name] = list(f.interval)
        m = self.interval_method
        if m is not None:
            if m.resamples is not None:
                ci["resamples"] = m.resamples
            if m.seed is not None:
                ci["seed"] = m.seed
            if m.per_figure:
                out["ci95_methods"] = dict(m.per_figure)
        if ci:
            out["ci95"] = ci
        c = self.coverage
        out.update({
            "schema": self.schema, "task": self.task, "task_version": self.task_version,
            "model": self.system.model, "model_fingerprint": self.system.fingerprint,
            "system": self.system.name, "data": self.data.path,
            "data_sha256": self.data.sha256, "data_name": self.data.name,
            "split": self.data.split, "n": c.n, "coverage_of": c.of,
            "partial_by": list(c.by)})
        if c.is_partial and c.of is not None:
            out["data_coverage"] = {"n": c.n, "of": c.of, "by": ", ".join(c.by) or BY_LIMIT}
        else:
            out.pop("data_coverage", None)
        if self.provenance.created is not None:
            out["created"] = self.provenance.created
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any], *, path: str | Path | None = None) -> Result:
        """Read any version of ``metrics.json`` (a run's or ``evaluate --out``'s)."""
        if not isinstance(d, Mapping):
            raise RefbenchError("not a result (expected a JSON object)", path=path)
        missing = [k for k in ("task", "n") if k not in d]
        if missing:
            raise RefbenchError(f"not a result (no {', '.join(missing)})", path=path)
        schema = d.get("schema", 1)
        if not isinstance(schema, int) or schema > SCHEMA_VERSION:
            raise RefbenchError(f"a result of schema {schema!r}: this refbench reads up to "
                                f"{SCHEMA_VERSION}; upgrade refbench", path=path)
        system = system_of(d) or SystemIdentity(str(d.get("system") or "system"), None,
                                                None)
        figures, method = _figures(d)
        prov = d.get("provenance") if isinstance(d.get("provenance"), Mapping) else {}
        assert isinstance(prov, Mapping)
        version = d.get("task_version")
        return cls(task=str(d["task"]), system=system, data=data_identity(d),
                   coverage=coverage_of(d), figures=figures, interval_method=method,
                   task_version=version if isinstance(version, int) else None,
                   provenance=Provenance(
                       refbench_version=_str(prov.get("refbench_version")),
                       git_hash=_str(prov.get("git_hash")), command=_str(prov.get("command")),
                       time=_str(prov.get("time")), created=_str(d.get("created"))),
                   details={k: v for k, v in d.items() if k not in _IDENTITY_KEYS
                            or k == "provenance"},
                   schema=SCHEMA_VERSION)

    @classmethod
    def read(cls, path: str | Path) -> Result:
        """The result in ``path`` (a ``metrics.json``, or a run folder holding one)."""
        p = Path(path)
        f = p / METRICS_FILE if p.is_dir() else p
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise RefbenchError("not a run folder (no metrics.json)", path=p) from None
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise RefbenchError("not a run's metrics (invalid JSON)", path=f) from None
        if isinstance(data, Mapping):  # a record is checked against its evidence
            check_record(data, path=f, folder=f.parent, sealed_record=f.name == METRICS_FILE)
        return cls.from_json(data, path=f)


def _str(x: Any) -> str | None:
    return str(x) if x is not None else None


def _figures(d: Mapping[str, Any]) -> tuple[tuple[Figure, ...], IntervalMethod | None]:
    ci = d.get("ci95") if isinstance(d.get("ci95"), Mapping) else {}
    assert isinstance(ci, Mapping)
    figures = []
    for k, v in d.items():
        if k in _NOT_FIGURES or k.startswith("n_") or isinstance(v, bool):
            continue
        if isinstance(v, float) or (v is None and k in ci):
            iv = ci.get(k)
            interval = (float(iv[0]), float(iv[1])) if isinstance(iv, list | tuple) and \
                len(iv) == 2 and all(isinstance(x, int | float) for x in iv) else None
            figures.append(Figure(k, v, interval))
    methods = d.get("ci95_methods") if isinstance(d.get("ci95_methods"), Mapping) else {}
    assert isinstance(methods, Mapping)
    method = None
    if ci or methods:
        res, seed = ci.get("resamples"), ci.get("seed")
        method = IntervalMethod(
            resamples=res if isinstance(res, int) else None,
            seed=seed if isinstance(seed, int) else None,
            per_figure=tuple(sorted((str(k), str(v)) for k, v in methods.items())))
    return tuple(figures), method


# -- what a run is of ------------------------------------------------------------------------
def run_identity(*, model: str, fingerprint: str, data: Path, provenance: Mapping[str, Any],
                 task_version: int | None, split: str | None, created: str,
                 system: str | None = None) -> dict[str, Any]:
    """The identity block of every run's ``metrics.json``, whoever made the run (refbench's
    runner, a merge of shards, an lm-eval import, a TNE run): the system (model spec, display
    name, fingerprint), the data (resolved path, content sha256 from its ``provenance``,
    split), the task's version and when it was made. :meth:`Result.from_json` reads these keys
    into the typed fields."""
    return {"model": model, "system": system or model, "model_fingerprint": fingerprint,
            "data": str(data.resolve()), "data_sha256": data_sha256(provenance),
            "task_version": task_version, "split": split, "created": created}


def run_place(out: Path | None, predictions: str = "predictions.jsonl") -> dict[str, Any]:
    """Where a run's files are (``out_dir``, ``predictions``; None for a run kept in memory),
    after the run's own settings in ``metrics.json``."""
    if out is None:
        return {"out_dir": None, "predictions": None}
    return {"out_dir": str(out.resolve()), "predictions": str((out / predictions).resolve())}


# -- the rules -------------------------------------------------------------------------------
def complete_and_partial(results: Iterable[Result]) -> tuple[list[Result], list[Result]]:
    """The complete results (to average, rank and compare) and the partial ones (shown apart,
    each with its n of N)."""
    complete: list[Result] = []
    partial: list[Result] = []
    for r in results:
        (partial if r.is_partial else complete).append(r)
    return complete, partial


def name_clash(systems: Iterable[SystemIdentity]) -> tuple[SystemIdentity, SystemIdentity] | None:
    """Two different systems (model spec or fingerprint) under one display name, if any."""
    seen: dict[str, SystemIdentity] = {}
    for s in systems:
        other = seen.setdefault(s.name, s)
        if other.key != s.key:
            return other, s
    return None


def refuse_name_clash(systems: Iterable[SystemIdentity], *, hint: str = "") -> None:
    """UsageError, in one line naming both models, when two systems share a display name."""
    clash = name_clash(systems)
    if clash is not None:
        a, b = clash
        raise UsageError(f"two different systems are named {a.name!r}: {a.describe()} and "
                         f"{b.describe()}; results of different systems are never merged"
                         + (f" ({hint})" if hint else ""))


def names_apart(systems: Sequence[SystemIdentity]) -> list[str]:
    """A table label per system: its name, and where two systems share one, the model and a
    short fingerprint beside it (``S [random dd87e5]``)."""
    keys_by_name: dict[str, set[tuple[str, str | None]]] = {}
    for s in systems:
        keys_by_name.setdefault(s.name, set()).add(s.key)
    return [s.name if len(keys_by_name[s.name]) == 1
            else f"{s.name} [{s.model} {(s.fingerprint or '?')[:6]}]" for s in systems]


def gold_mismatch(recorded: str | None, gold_sha256: str | None, gold: str | Path) -> str | None:
    """The one-line warning when the gold differs from the data a run recorded (None when
    they agree or either is unknown)."""
    if not recorded or not gold_sha256 or recorded == gold_sha256:
        return None
    return (f"the gold {gold} (sha256 {gold_sha256[:12]}) is not the data the run recorded "
            f"(sha256 {recorded[:12]}); its figures may differ from the run's")
