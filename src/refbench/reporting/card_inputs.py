"""What the model card is made of, as :class:`~refbench.core.result.Result` objects: run
folders and every run under a folder (a several-benchmark run's ``--out``, a KITMUS suite or a
WinoBias release run: :func:`refbench.runs.record.run_folders`), result files (``refbench
evaluate --out``), and runs recorded in the results store, filtered by system, task and data.
Combined files (``summary.json``, ``suite-results.json``) are never read: the card combines
the files' own results itself, by the task's headline."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.result import METRICS_FILE, Result
from refbench.reporting.card import Entry, ModelCard, build_card


def entries_of(items: Iterable[Any]) -> list[Entry]:
    """Results (kept with their run folder when they kept one), entries, run folders and
    result files, as the card's entries."""
    out: list[Entry] = []
    for item in items:
        if isinstance(item, Entry):
            out.append(item)
        elif isinstance(item, Result):
            source = getattr(item, "out_dir", None)
            out.append(Entry(item, source if isinstance(source, str) else None))
        elif isinstance(item, str | Path):
            out.extend(entries_in([item]))
        else:
            raise UsageError(f"{item!r}: expected a Result, a run folder or a result file")
    return out


def skipped_notes(items: Iterable[Any]) -> list[str]:
    """A note naming the benchmarks a several-benchmark run passed over (``--data all``), by
    name only: the reasons hold paths and error text, which a paper's table does not."""
    from refbench.runs.multi import read_summary

    names: list[str] = []
    for item in items:
        if isinstance(item, str | Path) and Path(item).is_dir():
            summary = read_summary(Path(item))
            names += [str(s.get("benchmark")) for s in (summary or {}).get("skipped", [])]
    if not names:
        return []
    return ["not run (the system cannot run them): " + ", ".join(dict.fromkeys(names))]


def make_card(items: Iterable[Any], *, against: str | None = None) -> ModelCard:
    """The model card of ``items`` (:func:`entries_of`); ``against``: cells marked by the
    paired test against that system (:mod:`refbench.reporting.card_against`)."""
    items = list(items)
    entries = entries_of(items)
    if not entries:
        raise UsageError("no results for a model card")
    made = build_card(entries, notes=skipped_notes(items))
    if against is not None:
        from refbench.reporting.card_against import mark_against

        mark_against(made, against)
    return made


def entries_in(paths: Sequence[str | Path]) -> list[Entry]:
    """The results in ``paths``, each with the folder it came from."""
    from refbench.runs.record import run_folders

    out: list[Entry] = []
    for given in paths:
        p = Path(given)
        if p.is_file():
            out.append(Entry(Result.read(p), str(p.parent if p.name == METRICS_FILE else p)))
            continue
        if not p.exists():
            raise RefbenchError("no such run folder or result file", path=p)
        for folder, metrics in run_folders([p]):
            rid = metrics.get("run_id")
            out.append(Entry(Result.from_json(metrics, path=folder / METRICS_FILE),
                             str(folder), rid if isinstance(rid, int) else None))
    return out


def _matches(given: str | None, *values: Any) -> bool:
    return given is None or any(v is not None and given in (str(v), Path(str(v)).name)
                                for v in values)


def store_entries(store: Any, *, ids: Sequence[int] | None = None, tag: str | None = None,
                  system: str | None = None, task: str | None = None,
                  data: str | None = None) -> list[Entry]:
    """Runs of a :class:`refbench.runs.store.Store`, oldest first: ``system`` matches a
    display name or model spec, ``data`` a data path, its file name or its sha256."""
    rows = list(reversed(store.runs(limit=None, ids=ids, tag=tag, task=task)))
    if ids is not None:
        missing = sorted(set(ids) - {r["run_id"] for r in rows})
        if missing:
            raise UsageError(f"no run {missing[0]} in the results store")
    out = []
    for row in rows:
        if not _matches(system, row.get("system"), row.get("model")):
            continue
        full = store.get(row["run_id"])
        if not _matches(data, full.get("data"), full.get("data_sha256")):
            continue
        metrics = dict(full["metrics"])
        for key in ("system", "model", "model_fingerprint", "data", "data_sha256", "split",
                    "created"):
            if full.get(key) is not None:
                metrics.setdefault(key, full[key])
        out.append(Entry(Result.from_json(metrics, path=f"run {row['run_id']}"),
                         full.get("out_dir"), int(row["run_id"])))
    return out


def needs_card(paths: Sequence[Path]) -> bool:
    """True when a path is a folder of runs with no result of its own (a several-benchmark
    run's ``--out``): only the model card reports it; a run folder, a folder run with its
    combined result and a result file keep their task's own tables."""
    from refbench.reporting.results import folder_result_files

    own = (METRICS_FILE, *folder_result_files())
    return any(p.is_dir() and not any((p / name).is_file() for name in own) for p in paths)
