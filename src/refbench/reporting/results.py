"""Results to report, from wherever they were written: ``refbench evaluate --out`` files, run
folders (``metrics.json``), suite run folders (``suite-results.json``) and the results store.

Each result is the dict the scorer or runner produced, plus ``_path`` (where it came from) and,
where it was not recorded, the split (inferred from the data file's name).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.identity import reader_options_text
from refbench.core.io import load_json_object
from refbench.core.records import Record, Where
from refbench.core.result import Result, coverage_of, names_apart, system_of
from refbench.core.seal import check_record
from refbench.tasks.files import split_from_name
from refbench.tasks.lookup import find_task, tasks_with


def folder_result_files() -> list[str]:
    """The combined-result files folder runs write (KITMUS: ``suite-results.json``)."""
    return list(dict.fromkeys(t.folder.result_file for t in tasks_with("folder")
                              if t.folder is not None))


def _result_file(p: Path) -> Path:
    if p.is_dir():
        for name in (*folder_result_files(), "metrics.json"):
            if (p / name).is_file():
                return p / name
        raise RefbenchError("is a folder without suite-results.json or metrics.json (refbench "
                            "run --out writes them; refbench evaluate --out writes a result "
                            "file)", path=p)
    if not p.is_file():
        raise RefbenchError("result file not found", path=p)
    return p


def _complete(data: dict[str, Any], where: str) -> dict[str, Any]:
    data.setdefault("_path", where)
    if not data.get("split") and data.get("mode") != "suite":
        data["split"] = split_from_name(str(data.get("data") or data.get("gold") or ""))
    return data


def load_results(paths: Sequence[str | Path], *, label: bool = True) -> list[dict[str, Any]]:
    """The results in ``paths``; ``label``: names as a table shows them (:func:`labelled`)."""
    out = []
    for given in paths:
        p = _result_file(Path(given))
        _not_predictions(p)
        data = load_json_object(p, "result object")
        if "task" not in data:
            raise RefbenchError("not a refbench result (no 'task' field)", path=p)
        check_result_shape(data, p)
        run = p.name == "metrics.json"  # a run's own record; others combine runs
        check_record(data, path=p, folder=p.parent if run else None, sealed_record=run)
        out.append(_complete(data, str(p)))
    return labelled(out) if label else out


def result_summaries(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``report --json``: each result as :meth:`refbench.core.result.Result.summary` gives it
    (a folder's combined result, which has no single coverage, as it was written)."""
    from refbench.core.result import Result

    return [Result.from_json(r).summary() if "n" in r else
            {k: v for k, v in r.items() if not k.startswith("_")} for r in results]


def labelled(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rules of :mod:`refbench.core.result` applied to the results of one report: two
    systems sharing a name are named apart (``S [first b82826]``), never merged into one
    column; a run read with reader options is named with them (``S [ablate=entity]``: other
    texts of the same file); a partial result is named as such (``S (partial: 1 of 2)``), so
    it is shown with its n of N and never averaged or ranked with complete results."""
    # identity and coverage from each result's Result, made once (a folder's combined result,
    # which has no single coverage, only its system)
    typed = {k: Result.from_json(r, path=r.get("_path")) for k, r in enumerate(results)
             if r.get("mode") != "suite" and "n" in r}
    found = [(k, typed[k].system if k in typed and r.get("model") else system_of(r))
             for k, r in enumerate(results)]
    known = [(k, s) for k, s in found if s is not None]
    for (k, _), name in zip(known, names_apart([s for _, s in known]), strict=True):
        results[k]["system"] = name
    for r in results:
        # read with reader options (a KITMUS ablation): other texts, never the same column
        options = reader_options_text(r.get("reader_options"))
        if options:
            r["system"] = f"{r.get('system') or r.get('model')} [{options}]"
    for k, r in enumerate(results):
        if k not in typed:
            continue
        cov = typed[k].coverage
        if cov.is_partial:
            of = "?" if cov.of is None else str(cov.of)
            r["system"] = f"{r.get('system') or r.get('model')} (partial: {cov.n} of {of})"
    return results


def _not_predictions(p: Path) -> None:
    """A predictions file (JSON lines, as ``run`` or a task's baseline writes) is not a result:
    say how to make one of it, instead of "invalid JSON"."""
    import json

    from refbench.core.inputs import format_name
    from refbench.core.io import read_lines

    name = format_name(p)
    if not name.endswith((".jsonl", ".jsonlines")):
        return
    lines = []
    for _, text in read_lines(p):
        if text.strip():
            lines.append(text)
        if len(lines) > 1:
            break
    try:
        first = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        return
    if isinstance(first, dict) and (len(lines) > 1 or "task" not in first):
        raise RefbenchError("is a predictions file (JSON lines), not a result: score it first "
                            f"with refbench evaluate --task TASK --gold GOLD --pred {p} --out "
                            "result.json, then refbench report result.json", path=p)


def check_result_shape(data: dict[str, Any], path: str | Path) -> None:
    """The fields a table reads, checked once: the task name, then what the task's own layout
    reads (:meth:`refbench.tasks.capabilities.Report.check_result`)."""
    Record(data, Where(path)).string("task")
    task = find_task(str(data["task"]))
    if task is not None and task.report is not None:
        task.report.check_result(data, path)


def store_results(store: Any, *, ids: Sequence[int] | None = None, tag: str | None = None,
                  task: str | None = None, skipped: list[str] | None = None
                  ) -> list[dict[str, Any]]:
    """Runs from a :class:`refbench.runs.store.Store`, oldest first, as result dicts. Runs on
    part of a data set (``--limit``) are left out of tables and listed in ``skipped``."""
    rows = list(reversed(store.runs(limit=None, ids=ids, tag=tag, task=task)))
    if ids is not None:
        found = {r["run_id"] for r in rows}
        missing = [i for i in ids if i not in found]
        if missing:
            raise RefbenchError(f"no run {missing[0]} in the results store", path=store.path)
        order = {rid: k for k, rid in enumerate(ids)}
        rows.sort(key=lambda r: order[r["run_id"]])
    out = []
    for row in rows:
        full = store.get(row["run_id"])
        check_record(full["metrics"], path=f"{store.path}: run {row['run_id']}")
        metrics = dict(full["metrics"])
        metrics.setdefault("system", full.get("system") or full["model"])
        metrics.setdefault("model", full["model"])
        metrics.setdefault("data", full["data"])
        if full.get("split"):
            metrics.setdefault("split", full["split"])
        metrics["run_id"] = row["run_id"]
        cov = coverage_of(metrics)
        if cov.is_partial:
            if skipped is not None:
                of = "" if cov.of is None else f" of {cov.of}"
                skipped.append(f"run {row['run_id']} (only the first {cov.n}{of} instances: "
                               f"{', '.join(cov.by) or '--limit'})")
            continue
        out.append(_complete(metrics, f"run {row['run_id']}"))
    return labelled(out)
