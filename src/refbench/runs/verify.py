"""``refbench results verify [--rescore]``: each run folder's record checked against its
evidence (:mod:`refbench.core.seal`), and, with ``rescore``, its predictions scored again
against its data and the figures compared with the recorded ones."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import sha256_file
from refbench.core.result import METRICS_FILE, Result
from refbench.core.seal import NOT_VERIFIED, REFUSED, VERIFIED, Verdict, verify

__all__ = ["Checked", "rescore_verdict", "verify_paths"]

#: Two figures agree when they differ by no more than this (both are computed in floats).
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Checked:
    """One record and what was found."""

    path: Path
    verdict: Verdict

    def line(self) -> str:
        return f"{self.path}: {self.verdict.text()}"


def _records(paths: Sequence[Path]) -> Iterator[Path]:
    for p in paths:
        if p.is_file():
            yield p
        elif (p / METRICS_FILE).is_file():
            yield p / METRICS_FILE
        elif p.is_dir():
            found = sorted(p.rglob(METRICS_FILE))
            if not found:
                raise RefbenchError(f"no {METRICS_FILE} under this folder (not a run folder)",
                                    path=p)
            yield from found
        else:
            raise RefbenchError("no such file or folder", path=p)


def _load(f: Path) -> dict[str, Any]:
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        raise RefbenchError("not a run's metrics (invalid JSON)", path=f) from None
    if not isinstance(data, dict) or "task" not in data or "n" not in data:
        raise RefbenchError("not a run's metrics (expected a JSON object with task and n)",
                            path=f)
    return data


def rescore_verdict(metrics: dict[str, Any], folder: Path) -> Verdict:
    """The run's predictions scored again against its data (as ``refbench evaluate`` does):
    every figure both have must agree."""
    from refbench.tasks.lookup import get_task
    from refbench.tasks.scoring import evaluate_predictions

    data = Path(str(metrics.get("data") or ""))
    if not data.exists():
        return Verdict(NOT_VERIFIED, f"its data {data} is not here to re-score against")
    sha = metrics.get("data_sha256")
    if data.is_file() and isinstance(sha, str) and sha256_file(data) != sha:
        return Verdict(NOT_VERIFIED, f"its data {data} changed since the run (sha256)")
    task = get_task(str(metrics["task"]))
    options = metrics.get("reader_options") if isinstance(metrics.get("reader_options"),
                                                           dict) else None
    again = evaluate_predictions(task, data, [folder], bootstrap=0, reader_options=options)
    recorded = Result.from_json(metrics)
    now = Result.from_json(again) if "n" in again else None
    if now is None:
        return Verdict(NOT_VERIFIED, "its task gives no figures to compare when re-scored")
    for fig in recorded.figures:
        other = now.figure(fig.name)
        if other is None or not isinstance(fig.value, float) \
                or not isinstance(other.value, float):
            continue
        if abs(fig.value - other.value) > TOLERANCE:
            return Verdict(REFUSED, f"{fig.name} is recorded as {fig.value:.3f}, but its "
                                    f"predictions score {other.value:.3f} against {data}")
    return Verdict(VERIFIED, "re-scored: the figures agree")


def verify_paths(paths: Sequence[Path], *, rescore: bool = False) -> list[Checked]:
    """Every record in ``paths`` (run folders, folders of runs, ``metrics.json`` files)."""
    out = []
    for f in _records(paths):
        metrics = _load(f)
        verdict = verify(metrics, folder=f.parent)
        if rescore and not verdict.refused and (f.parent / "predictions.jsonl").is_file():
            try:
                verdict = rescore_verdict(metrics, f.parent)
            except RefbenchError as exc:
                verdict = Verdict(REFUSED, f"re-scoring failed: {exc.message}")
        out.append(Checked(f, verdict))
    return out
