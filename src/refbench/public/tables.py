"""What ``refbench report`` computes, as a library function: the tables (or the JSON
summaries) of result files, run folders, a several-benchmark run's folder or the store's
runs, with the command line's options (keyword-only). The command prints what
:func:`report_tables` returns; the tables themselves are built in :mod:`refbench.reporting`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError


@dataclass(frozen=True)
class Report:
    """A report: its ``text`` (a table in the format asked for; None with ``as_json``), its
    ``summaries`` (with ``as_json``: one per result), the ``notes`` to show beside it (what
    was left out, partial results), and the results it was made of."""

    text: str | None
    summaries: list[dict[str, Any]] | None = None
    notes: list[str] = field(default_factory=list)
    data: list[dict[str, Any]] = field(default_factory=list)


def report_tables(results: Sequence[Path] = (), *, fmt: str = "md", metric: str | None = None,
                  ci: bool = False, standalone: bool = False, from_store: bool = False,
                  store: Path | None = None, run_ids: Sequence[int] | None = None,
                  tag: str | None = None, task: str | None = None,
                  as_json: bool = False, say: Callable[[str], None] | None = None) -> Report:
    """The report of ``results`` (result files, run folders, or the folder of a
    several-benchmark run: its summary table), or with ``from_store`` of the store's runs
    (``run_ids``, ``tag``, ``task``: which). ``fmt``: md, latex, html or csv;
    ``as_json``: the results' summaries instead of a table. ``say``: where the notes go as
    they come (so they are shown before an error too); else they are the Report's ``notes``."""
    from refbench.reporting.render import FORMATS
    from refbench.reporting.reporting import build_tables
    from refbench.reporting.summary import summary_report

    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    notes: list[str] = []
    if from_store:
        data = _from_store(store, run_ids, tag, task, say or notes.append)
    elif results and not as_json and (text := summary_report(
            tuple(results), fmt, standalone=standalone)):
        return Report(text)  # the folder of a several-benchmark run: its summary table
    elif results:
        from refbench.reporting.results import load_results

        data = load_results(results, label=not as_json)
        for r in data:
            cov = r.get("data_coverage")
            if isinstance(cov, dict):
                (say or notes.append)(f"note: {r.get('_path')} covers {cov.get('n')} of "
                             f"{cov.get('of')} instances of its data "
                             f"({cov.get('by', '--limit')})")
    else:
        raise UsageError("give result files or run folders, or --from-store")
    if as_json:
        from refbench.reporting.results import result_summaries

        return Report(None, result_summaries(data), notes, data)
    text = build_tables(data, fmt=fmt, metric=metric, ci=ci, standalone=standalone)
    if not text.strip():
        raise RefbenchError("no figures to report: the results hold no metrics (a result "
                            "written by refbench evaluate --out or refbench run has them)",
                            path=", ".join(str(r.get("_path", "?")) for r in data))
    return Report(text, None, notes, data)


def _from_store(store: Path | None, run_ids: Sequence[int] | None, tag: str | None,
                task: str | None, say: Callable[[str], None]) -> list[dict[str, Any]]:
    from refbench.reporting.results import store_results
    from refbench.runs.store import Store

    skipped: list[str] = []
    with Store(store, readonly=True) as st:
        say(st.describe())
        data = store_results(st, ids=run_ids, tag=tag, task=task, skipped=skipped)
    for note in skipped:
        say(f"note: left out {note}")
    if not data:
        raise UsageError("no runs in the results store match" if (run_ids or tag or task)
                         else "every run in the results store covers only part of its "
                         "data (--limit): nothing to tabulate" if skipped
                         else "the results store has no runs yet")
    return data
