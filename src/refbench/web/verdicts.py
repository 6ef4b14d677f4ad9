"""Whether a served run's record is believed: its seal checked against its evidence
(:func:`refbench.core.seal.verify`), as every other reader of records checks it.

A run whose record is *refused* (a figure edited by hand, predictions changed after the run,
a figure outside its own interval, a damaged seal) shows no figure anywhere: it is listed
under "Not shown" with the reason, like a run whose predictions are unreadable. A record
that is only *not verified* (written before seals) is shown, and every page that shows its
figures (run page, leaderboard row, compare page, model card cell) marks it "not verified"
with the reason. The verdict is kept per run while its predictions file and its record are
unchanged, so pages do not hash the predictions again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from refbench.core.seal import VERIFIED, Verdict, record_sha256, verify
from refbench.web.runs import RunInfo, System

__all__ = ["shown_runs", "system_unverified", "unverified", "verdict_of"]

_VERDICTS: dict[tuple[str, int, int, str], Verdict] = {}


def verdict_of(run: RunInfo) -> Verdict:
    """The run's record checked against its seal and its predictions file."""
    try:
        st = run.predictions.stat()
        record = record_sha256(run.metrics)
    except (OSError, TypeError, ValueError):
        return verify(run.metrics, folder=run.predictions.parent)
    key = (str(run.predictions), st.st_size, st.st_mtime_ns, record)
    if key not in _VERDICTS:
        _VERDICTS[key] = verify(run.metrics, folder=run.predictions.parent)
    return _VERDICTS[key]


def shown_runs(runs: Sequence[RunInfo], problems: Sequence[tuple[str, str]]
               ) -> tuple[list[RunInfo], list[tuple[str, str]]]:
    """The runs a page may show (refused records left out) and the problems listed under "Not
    shown", each refused run added with its reason."""
    shown: list[RunInfo] = []
    refused: list[tuple[str, str]] = []
    for run in runs:
        verdict = verdict_of(run)
        if verdict.refused:
            refused.append((str(run.predictions.parent / "metrics.json"),
                            f"run {run.rid} ({run.name}) is not shown: its record is refused "
                            f"({verdict.reason}); refbench results verify --rescore re-scores "
                            "its predictions"))
        else:
            shown.append(run)
    return shown, [*problems, *refused]


def unverified(run: object) -> str:
    """"" for a verified record, else why it is not (``written before seals``); "" for
    anything but a served run (a table drawn from something else has no record to judge)."""
    if not isinstance(run, RunInfo):
        return ""
    verdict = verdict_of(run)
    return "" if verdict.state == VERIFIED else verdict.reason or verdict.state


def system_unverified(system: System | Iterable[RunInfo] | object) -> str:
    """Why some of a system's runs (or of the runs given) are not verified ("" when all are),
    said once per reason."""
    runs: Iterable[object] = system.runs if isinstance(system, System) else \
        system if isinstance(system, list | tuple) else ()
    reasons = sorted({why for run in runs if (why := unverified(run))})
    return "; ".join(reasons)
