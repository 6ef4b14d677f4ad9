"""Which system, which data, how much of it: the identities every result carries, and the one
function for each question (:func:`system_of`, :func:`data_identity`, :func:`coverage_of`), for
every version of ``metrics.json``. :mod:`refbench.core.result` builds the Result on them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

METRICS_FILE = "metrics.json"

#: Why a result is partial (:attr:`Coverage.by`).
BY_LIMIT = "--limit"
BY_SHARD = "shard"
BY_LM_EVAL_LIMIT = "lm-eval --limit"
BY_MISSING = "missing predictions"

@dataclass(frozen=True)
class DataIdentity:
    """The data a result is of: its content (sha256 of the file), split, a display name, the
    path as it was given, and the reader options its instances were read with (``options``,
    e.g. ``ablate=entity``: a KITMUS ablation removes sentences from every text). Two results
    are of the same data when task, sha256, split and reader options agree, wherever the file
    lies; results of one file read with different options have the same instances (ids,
    candidates, gold), which is what paired tests pair (:attr:`instances_key`)."""

    sha256: str | None
    split: str | None
    name: str
    path: str
    options: str | None = None

    @property
    def key(self) -> tuple[str | None, str | None, str | None]:
        """What identifies it (with the task): (content sha256, split, reader options)."""
        return self.sha256, self.split, self.options

    @property
    def instances_key(self) -> tuple[str | None, str | None]:
        """The file and split its instances come from, whatever the reader options did to
        their text: (content sha256, split)."""
        return self.sha256, self.split


@dataclass(frozen=True)
class SystemIdentity:
    """A system: its model spec and the fingerprint of its weights and options; the display name
    (``--system``) is a label, never what two results are matched by."""

    model: str
    fingerprint: str | None
    display_name: str | None = None

    @property
    def name(self) -> str:
        """What tables call it: the display name, else the model spec."""
        return self.display_name or self.model

    @property
    def key(self) -> tuple[str, str | None]:
        """What identifies it: (model spec, fingerprint)."""
        return self.model, self.fingerprint

    def describe(self) -> str:
        """The name with what it is: ``S (model random, fingerprint dd87e5)``."""
        return f"{self.name} (model {self.model}, fingerprint {(self.fingerprint or '?')[:6]})"


@dataclass(frozen=True)
class Coverage:
    """How much of its data a result scored: ``n`` instances of ``of`` (None: unknown, a file
    written before refbench recorded it), and why it is partial (``by``: :data:`BY_LIMIT`,
    :data:`BY_SHARD`, :data:`BY_LM_EVAL_LIMIT`, :data:`BY_MISSING`)."""

    n: int
    of: int | None = None
    by: tuple[str, ...] = ()

    @property
    def is_partial(self) -> bool:
        return bool(self.by) or (self.of is not None and self.n < self.of)

    def text(self) -> str:
        """``40 of 273 instances (partial: --limit)``, or ``273 instances``."""
        of = f" of {self.of}" if self.of is not None and self.of != self.n else \
            " of ?" if self.of is None and self.is_partial else ""
        if not self.is_partial:
            return f"{self.n}{of} instances"
        return f"{self.n}{of} instances (partial: {', '.join(self.by) or 'fewer than the data'})"

    def note(self) -> str:
        """`` (partial: 40 of 273 instances, --limit)`` for a partial result, else ``""``."""
        if not self.is_partial:
            return ""
        of = "?" if self.of is None else str(self.of)
        why = f", {', '.join(self.by)}" if self.by else ""
        return f" (partial: {self.n} of {of} instances{why})"



# -- the one answer to "which system", "which data", "how much of it" ------------------------
def run_metrics_beside(pred: str | Path) -> dict[str, Any] | None:
    """The ``metrics.json`` of a run folder, or beside a run's ``predictions.jsonl``; for a
    folder run's ``--out``, its first run's (all its runs are of one system)."""
    p = Path(pred)
    if p.is_dir():
        meta = p / METRICS_FILE
        if not meta.is_file():
            meta = next(iter(sorted(p.rglob(METRICS_FILE))), meta)
    elif p.name == "predictions.jsonl":
        meta = p.parent / METRICS_FILE
    else:
        return None
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def system_of(source: str | Path | Mapping[str, Any]) -> SystemIdentity | None:
    """Which system a result is of: a run folder, a run's predictions file, a folder run's
    ``--out`` or a metrics mapping. None for a file of unknown origin (no recorded model)."""
    d = source if isinstance(source, Mapping) else run_metrics_beside(source)
    if not d or not d.get("model"):
        return None
    model = str(d["model"])
    fp = d.get("model_fingerprint")
    name = d.get("system")
    return SystemIdentity(model, str(fp) if fp else None,
                          str(name) if name and str(name) != model else None)


def data_sha256(d: Mapping[str, Any]) -> str | None:
    """The sha256 of the data a result is of: its ``data_sha256``, else what its provenance
    recorded of its data (runs made before refbench recorded the first)."""
    given = d.get("data_sha256")
    if isinstance(given, str) and given:
        return given
    prov = d.get("provenance", d)
    inputs = prov.get("inputs") if isinstance(prov, Mapping) else None
    files = inputs.get("data") if isinstance(inputs, Mapping) else None
    first = files[0] if isinstance(files, list) and files else None
    sha = first.get("sha256") if isinstance(first, Mapping) else None
    return str(sha) if sha else None


def reader_options_text(options: Any) -> str | None:
    """A run's reader options as one canonical string (``ablate=entity``; keys sorted), None
    when it has none: part of its data identity and of the data's display name."""
    if not isinstance(options, Mapping) or not options:
        return None
    return ",".join(f"{k}={v if isinstance(v, str) else json.dumps(v, sort_keys=True)}"
                    for k, v in sorted(options.items()))


def data_display_name(path: str | None) -> str:
    """A data file named by its last folders (``altentities/books/test.json.gz``)."""
    if not path:
        return "-"
    parts = Path(path).parts
    return "/".join(parts[-3:]) if len(parts) > 3 else str(path)


_FILE_SHAS: dict[tuple[str, int, int], str] = {}


def data_identity(d: Mapping[str, Any] | Path) -> DataIdentity:
    """Which data a result is of (from its metrics mapping, every version of
    ``metrics.json``), or what a data file is (its content sha256, computed once while its
    size and time are unchanged and remembered in the cache folder across starts): the one
    answer to "which data", so a run and a served dataset are matched by content wherever
    either lies."""
    if isinstance(d, Path):
        from refbench.core.cache import remembered_sha256

        st = d.stat()
        key = (str(d), st.st_size, st.st_mtime_ns)
        if key not in _FILE_SHAS:
            _FILE_SHAS[key] = remembered_sha256(d)
        return DataIdentity(sha256=_FILE_SHAS[key], split=None,
                            name=data_display_name(str(d)), path=str(d))
    path = str(d.get("data") or d.get("gold") or "")
    name = str(d.get("data_name") or "") or data_display_name(path)
    split = d.get("split")
    options = reader_options_text(d.get("reader_options"))
    return DataIdentity(sha256=data_sha256(d), split=str(split) if split else None,
                        name=f"{name} [{options}]" if options else name, path=path,
                        options=options)


def coverage_of(d: Mapping[str, Any]) -> Coverage:
    """How much of its data a metrics mapping covers, for every version of ``metrics.json``:
    ``coverage_of``/``partial_by`` (schema 2), lm-eval's ``data_coverage``, a shard's
    ``n_total``, ``--limit`` (N unknown in older files when the limit cut the data), and
    missing predictions (``n_missing``, ``evaluate``)."""
    n = int(d.get("n") or 0)
    recorded = d.get("coverage_of")
    if "partial_by" in d:
        by_ = tuple(str(b) for b in d.get("partial_by") or ())
        of_ = recorded if isinstance(recorded, int) else None
        missing_ = d.get("n_missing")
        if BY_MISSING in by_ and n == of_ and isinstance(missing_, int):
            n -= missing_  # evaluate's n is the gold's; it scored those with predictions
        return Coverage(n, of_, by_)
    by: list[str] = []
    of: int | None = None
    cov = d.get("data_coverage")
    if isinstance(cov, Mapping) and isinstance(cov.get("of"), int):
        of = int(cov["of"])
        by.append(str(cov.get("by") or BY_LM_EVAL_LIMIT))
    shard = d.get("shard")
    if isinstance(shard, Mapping) and isinstance(shard.get("n_total"), int):
        of = of if of is not None else int(shard["n_total"])
        by.append(BY_SHARD)
    limit = d.get("limit")
    if isinstance(limit, int) and not by and n >= limit:
        by.append(BY_LIMIT)  # the limit cut the data: N was not recorded before schema 2
    missing = d.get("n_missing")
    if isinstance(missing, int) and missing > 0:
        by.append(BY_MISSING)
        of = n
        n = n - missing
    if not by and of is None:
        of = n
    return Coverage(n, of, tuple(by))
