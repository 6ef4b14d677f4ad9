"""A record checked against its evidence: the seal a run writes into ``metrics.json``, and the
one check every reader makes.

A figure in a ``metrics.json`` is believed only as far as it can come from the run's
predictions. The writer (:func:`seal`) records, under ``seal``, the sha256 of the
predictions file, the sha256 of the data, and a sha256 over the record itself (every field
but ``seal`` and the store's ``run_id``, as canonical JSON). A reader (:func:`verify`) then
knows when

- a figure was edited by hand (accuracy 0.502 -> 0.99): the record's own sha256 differs;
- the predictions changed after the run: their sha256 differs;
- a figure lies outside its own interval: no scorer writes that, sealed or not.

The seal is a checksum, not a signature: it catches edits and stale files, not someone who
recomputes it on purpose; ``refbench results verify --rescore`` scores the predictions again
against the gold. Records written before seals are read as they are, "not verified: written
before seals"; a record that fails a check is refused (:class:`RecordRefused`, one line,
exit code 2) by the readers that load it to use its figures, and listed as "not verified"
with the reason where records are only shown.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError

__all__ = ["PREDICTIONS_FILE", "SEAL_KEY", "SEAL_VERSION", "RecordRefused", "Verdict",
           "check_record", "seal", "verify"]

SEAL_KEY = "seal"
SEAL_VERSION = 1
PREDICTIONS_FILE = "predictions.jsonl"
#: Fields left out of the record's own sha256: the seal itself, and what the store adds.
_UNSEALED = frozenset({SEAL_KEY, "run_id", "_path"})
_SLACK = 1e-9

VERIFIED = "verified"
NOT_VERIFIED = "not verified"
REFUSED = "refused"


class RecordRefused(RefbenchError):
    """A record whose figures cannot come from its evidence (exit code 2)."""


@dataclass(frozen=True)
class Verdict:
    """What a reader may make of a record: ``state`` is ``verified``, ``not verified`` (read,
    shown with ``reason``) or ``refused``."""

    state: str
    reason: str = ""

    @property
    def refused(self) -> bool:
        return self.state == REFUSED

    def text(self) -> str:
        return f"{self.state}: {self.reason}" if self.reason else self.state


def _sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def record_sha256(metrics: Mapping[str, Any]) -> str:
    """The sha256 of a record as canonical JSON (sorted keys; the seal and ``run_id`` left
    out). A record read back from its file gives the sha256 it was written with."""
    body = {k: v for k, v in metrics.items() if k not in _UNSEALED}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, default=str, allow_nan=False,
                      separators=(",", ":"))
    return _sha256_bytes(text.encode("utf-8"))


def seal(metrics: dict[str, Any], predictions: Path | None) -> dict[str, Any]:
    """``metrics`` with its ``seal``: the sha256 of ``predictions`` (when given and there),
    of the data (as the record names it) and of the record. Call it last, on the dict that is
    written (after ``finite``): any change afterwards breaks the seal."""
    # as it will read back: tuples as lists, keys as strings, other objects as their text
    body = json.loads(json.dumps({k: v for k, v in metrics.items() if k != SEAL_KEY},
                                 ensure_ascii=False, default=str, allow_nan=False))
    out: dict[str, Any] = {"version": SEAL_VERSION, "data_sha256": body.get("data_sha256")}
    if predictions is not None and predictions.is_file():
        out["predictions_sha256"] = _sha256_file(predictions)
    out["record_sha256"] = record_sha256(body)
    return {**body, SEAL_KEY: out}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def interval_breach(metrics: Mapping[str, Any]) -> str | None:
    """The first figure that lies outside its own 95% interval, said in one phrase."""
    ci = metrics.get("ci95")
    if not isinstance(ci, Mapping):
        return None
    for name, interval in sorted(ci.items()):
        value = _number(metrics.get(name))
        if value is None or not isinstance(interval, list | tuple) or len(interval) != 2:
            continue
        lo, hi = _number(interval[0]), _number(interval[1])
        if lo is None or hi is None:
            continue
        if not lo - _SLACK <= value <= hi + _SLACK:
            return (f"{name} {value:.3f} lies outside its own interval [{lo:.3f}, {hi:.3f}] "
                    "(a figure edited by hand?)")
    return None


def verify(metrics: Mapping[str, Any], *, folder: Path | None = None,
           sealed_record: bool = True) -> Verdict:
    """Check a record against its seal and, when ``folder`` (the run folder) is given, against
    the predictions file there. ``sealed_record=False``: a combined result (a folder run's
    ``results.json``, an ``evaluate --out`` file) that no seal covers, whatever it copied
    from its runs: only its intervals are checked."""
    breach = interval_breach(metrics)
    if breach:
        return Verdict(REFUSED, breach)
    if not sealed_record:
        return Verdict(NOT_VERIFIED, "a combined result: its runs carry the seals")
    sealed = metrics.get(SEAL_KEY)
    if sealed is None:
        return Verdict(NOT_VERIFIED, "written before seals")
    if not isinstance(sealed, Mapping) or not isinstance(sealed.get("record_sha256"), str):
        return Verdict(REFUSED, "its seal is damaged (expected an object with record_sha256)")
    if sealed["record_sha256"] != record_sha256(metrics):
        return Verdict(REFUSED, "it was changed after the run: its figures do not match its "
                                "seal (a figure edited by hand?)")
    if sealed.get("data_sha256") != metrics.get("data_sha256"):
        return Verdict(REFUSED, "its data sha256 is not the one it was sealed with")
    want = sealed.get("predictions_sha256")
    if folder is None or not isinstance(want, str):
        return Verdict(VERIFIED, "" if folder is None else "no predictions recorded")
    pred = folder / PREDICTIONS_FILE
    if not pred.is_file():
        return Verdict(NOT_VERIFIED, f"its {PREDICTIONS_FILE} is missing")
    if _sha256_file(pred) != want:
        return Verdict(REFUSED, f"its {PREDICTIONS_FILE} changed after the run (sha256 "
                                "differs from the seal): the figures are not of these "
                                "predictions")
    return Verdict(VERIFIED)


def check_record(metrics: Mapping[str, Any], *, path: str | Path,
                 folder: Path | None = None, sealed_record: bool = True) -> Verdict:
    """:func:`verify`, refusing (:class:`RecordRefused`, naming ``path``) a record that fails;
    the verdict otherwise."""
    verdict = verify(metrics, folder=folder, sealed_record=sealed_record)
    if verdict.refused:
        raise RecordRefused(f"this record is refused: {verdict.reason}; refbench results "
                            "verify --rescore re-scores its predictions", path=path)
    return verdict
