"""Predictions and gold must belong together: ``evaluate`` refuses predictions made on other data.

A figure of predictions scored against the wrong gold (GAP answers against WSC273, GAP test
against GAP dev) is 0.000 or noise, and nothing about it looks wrong. Before scoring, the
predictions are matched with the gold's instances, by id, and by content where ids agree but
the run recorded other data:

- **by id**: fewer than half (:data:`MIN_SHARE`) of the predictions name an instance of the
  gold: refused;
- **by content**: the ids agree, but the run recorded other data (its ``metrics.json``
  ``data_sha256``) and, read again, fewer than half of the instances behind those ids have
  the gold's text: refused.

The refusal is one line (:class:`ForeignPredictions`, a ``RefbenchError``): how many matched,
what the ids look like on each side, the data the run says it was made on, and which file
beside the gold (another split of the release) the predictions do match. ``name_of`` turns a
path into the name people use for it (``gap:test``); the layers above tasks pass the release
lookup, which tasks may not import.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.identity import run_metrics_beside
from refbench.core.inputs import format_name
from refbench.core.io import read_jsonl, sha256_file
from refbench.core.types import ChoiceInstance

__all__ = ["MIN_SHARE", "ForeignPredictions", "check_belongs", "check_counts",
           "prediction_ids"]

#: The share of the predictions that must name gold instances (and, when the run recorded
#: other data, the share of those instances whose text must be the gold's).
MIN_SHARE = 0.5
#: How many files beside the gold are tried when looking for the split that does match.
_MAX_SIBLINGS = 12
_MAX_SIBLING_BYTES = 64 * 1024 * 1024

NameOf = Callable[[Path], "str | None"]


class ForeignPredictions(RefbenchError):
    """Predictions that do not belong to the gold they are scored against (exit code 2)."""

    def __init__(self, message: str, *, path: str | Path | None = None) -> None:
        super().__init__(message, path=path)


def prediction_ids(pred: Path) -> list[str] | None:
    """The ids of an answers JSONL (what ``refbench run`` writes), in order; None for any other
    prediction format (the task's own reader checks those)."""
    if not format_name(pred).endswith(".jsonl"):
        return None
    ids = []
    for _, obj in read_jsonl(pred):
        if not isinstance(obj, dict) or "id" not in obj or "answer" not in obj:
            return None
        ids.append(str(obj["id"]))
    return ids


def _label(path: Path, name_of: NameOf | None) -> str:
    name = name_of(path) if name_of is not None else None
    return name or str(path)


def _recorded(pred: Path) -> dict[str, Any]:
    return run_metrics_beside(pred) or {}


def _made_on(run: dict[str, Any], name_of: NameOf | None) -> str:
    """"; the run was made on X" when the run recorded its data."""
    data = run.get("data")
    if not isinstance(data, str) or not data:
        return ""
    sha = run.get("data_sha256")
    short = f" (sha256 {sha[:12]})" if isinstance(sha, str) and sha else ""
    return f"; the run recorded its data as {_label(Path(data), name_of)}{short}"


def _siblings(gold: Path, run: dict[str, Any]) -> list[Path]:
    """Files that could be the data the predictions were made on: the run's recorded data,
    then the other files beside the gold (another split of the same release)."""
    found: list[Path] = []
    data = run.get("data")
    if isinstance(data, str) and data and Path(data).is_file():
        found.append(Path(data))
    try:
        beside = sorted(p for p in gold.parent.iterdir() if p.is_file())
    except OSError:
        beside = []
    for p in beside:
        if p not in found and p.resolve() != gold.resolve() and not p.name.startswith(".") \
                and p.stat().st_size <= _MAX_SIBLING_BYTES:
            found.append(p)
    return found[:_MAX_SIBLINGS]


def _matching_file(read: Callable[[Path], Sequence[ChoiceInstance]], gold: Path,
                   ids: Sequence[str], run: dict[str, Any], name_of: NameOf | None) -> str:
    """"; these predictions match X" for the first file beside the gold whose instances the
    predictions do name, or ""."""
    for path in _siblings(gold, run):
        try:
            other = {i.id for i in read(path)}
        except (RefbenchError, OSError, ValueError, UnicodeDecodeError):
            continue
        if other and sum(i in other for i in ids) >= MIN_SHARE * len(ids):
            return f"; these predictions match {_label(path, name_of)}"
    return ""


def check_belongs(gold: Path, pred: Path, instances: Sequence[ChoiceInstance], *,
                  read: Callable[[Path], Sequence[ChoiceInstance]],
                  name_of: NameOf | None = None) -> None:
    """Refuse (:class:`ForeignPredictions`) answers in ``pred`` that were not made on the gold
    file ``gold`` (read as ``instances``; ``read`` reads another file the same way)."""
    ids = prediction_ids(pred)
    if not ids or not instances:
        return
    gold_ids = {i.id for i in instances}
    matched = [i for i in ids if i in gold_ids]
    run = _recorded(pred)
    if len(matched) < MIN_SHARE * len(ids):
        first_gold = instances[0].id
        raise ForeignPredictions(
            f"these predictions do not belong to the gold {_label(gold, name_of)}: "
            f"{_how_many(len(matched), len(ids))} (at least half must): "
            f"prediction ids look like {ids[0]!r}, gold ids like {first_gold!r}"
            f"{_made_on(run, name_of)}{_matching_file(read, gold, ids, run, name_of)}",
            path=pred)
    _check_content(gold, pred, instances, matched, run, read=read, name_of=name_of)


def _check_content(gold: Path, pred: Path, instances: Sequence[ChoiceInstance],
                   matched: Sequence[str], run: dict[str, Any], *,
                   read: Callable[[Path], Sequence[ChoiceInstance]],
                   name_of: NameOf | None) -> None:
    """The ids agree; when the run recorded other data that is still there, the instances
    behind those ids must have the gold's text."""
    data, sha = run.get("data"), run.get("data_sha256")
    if not (isinstance(data, str) and isinstance(sha, str) and Path(data).is_file()):
        return
    if sha == sha256_file(gold) or sha256_file(Path(data)) != sha:
        return
    try:
        recorded = {i.id: i for i in read(Path(data))}
    except (RefbenchError, OSError, ValueError, UnicodeDecodeError):
        return
    by_id = {i.id: i for i in instances}
    both = [i for i in matched if i in recorded]
    same = sum(_text(recorded[i]) == _text(by_id[i]) for i in both)
    if both and same < MIN_SHARE * len(both):
        raise ForeignPredictions(
            f"these predictions do not belong to the gold {_label(gold, name_of)}: their ids "
            f"are its ids, but only {same} of {len(both)} of the instances the run was made on "
            f"have the gold's text (at least half must){_made_on(run, name_of)}", path=pred)


def _how_many(matched: int, total: int) -> str:
    if matched == 0:
        return f"none of the {total} predictions names one of its instances"
    return f"{matched} of {total} predictions name one of its instances"


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(inst: ChoiceInstance) -> tuple[str, str, tuple[str, ...]]:
    return inst.context, inst.expression, tuple(c.text for c in inst.candidates)


def check_counts(result: dict[str, Any], gold: Path, pred: Path, *,
                 name_of: NameOf | None = None) -> None:
    """The same rule over a scored result that counts its predictions (``n``,
    ``n_missing``, ``n_extra``: a folder scored whole, a task's own format): fewer than half
    of the predictions name a gold instance is refused."""
    n, missing, extra = (_count(result.get(k)) for k in ("n", "n_missing", "n_extra"))
    if n is None or missing is None or extra is None:
        return
    matched = max(0, n - missing)
    total = matched + extra
    if total and matched < MIN_SHARE * total:
        raise ForeignPredictions(
            f"these predictions do not belong to the gold {_label(gold, name_of)}: "
            f"{_how_many(matched, total)} (at least half must)"
            f"{_made_on(_recorded(pred), name_of)}", path=pred)
