"""The leaderboard (per task and dataset: systems x metrics with 95% intervals, each cell
linking to its run) and the page of one run."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from flask import Blueprint, Response, abort, render_template, url_for

from refbench.tasks.base import Task
from refbench.tasks.capabilities import PLAIN
from refbench.tasks.headline import Headline, figure_of
from refbench.tasks.lookup import find_task
from refbench.web import page_cache
from refbench.web.datasets import Dataset
from refbench.web.params import catalog
from refbench.web.runs import RunInfo, System

bp = Blueprint("board", __name__)

def _columns(task: Task | None) -> tuple[tuple[str, str], ...]:
    """(metric key in a run's metrics, label): the task's leaderboard columns."""
    return (task.web or PLAIN).leaderboard_columns if task else (("accuracy", "accuracy"),)


def cell(run: RunInfo, key: str) -> dict[str, Any] | None:
    """A figure of a run's result with its 95% interval by the one method its task's headline
    names (:func:`refbench.tasks.headline.figure_of`): Wilson's for a proportion of right
    answers, as the compare page and the model card show it; otherwise the interval the run
    recorded (a bootstrap)."""
    result = run.result
    figure = result.figure(key)
    if figure is None or figure.value is None:
        return None
    task = find_task(run.task)
    head = next((h for h in task.headline if h.metric == key), None) if task else None
    if head is None:
        head = Headline(key, key, "wilson" if key.startswith("accuracy") else "bootstrap")
    shown = figure_of(head, result)
    ci, name = shown.interval, shown.method
    if ci is None and figure.interval is not None:  # no count to make it from: the run's own
        method = result.interval_method
        ci, name = figure.interval, (dict(method.per_figure).get(key, method.name)
                                     if method else "bootstrap")
    return {"value": float(figure.value), "ci": tuple(ci) if ci else None,
            "method": name if ci else None, "rid": run.rid}


def split_partial(ds: Dataset, systems: list[System]
                  ) -> tuple[list[System], list[dict[str, Any]]]:
    """The systems with their complete runs only (what is ranked), and one row per partial run
    (``--limit``, a shard), listed apart with its coverage, n of N."""
    from dataclasses import replace

    keys = [k for k, _ in _columns(ds.task)] + ["accuracy"]
    ranked: list[System] = []
    partial: list[dict[str, Any]] = []
    for s in systems:
        whole = [r for r in s.runs if not r.is_partial]
        if whole:
            ranked.append(replace(s, runs=whole))
        for r in s.runs:
            if r.is_partial:
                n, total = r.result.coverage.n, r.result.coverage.of
                figure = next((c for k in keys if (c := cell(r, k))), None)
                name = next((label for k, label in _columns(ds.task) if cell(r, k)),
                            "accuracy")
                where = r.data.relative_to(ds.path) if ds.is_folder and r.data is not None \
                    and ds.path in r.data.parents else (r.data.name if r.data else "")
                partial.append({"system": s, "run": r, "n": n, "total": total,
                                "why": ", ".join(r.result.coverage.by),
                                "metric": name, "cell": figure, "file": str(where)})
    return ranked, partial


SUITE_BLOCK_COLUMNS = 9  # subtask columns per leaderboard table (3 KITMUS variants x 3)


def folder_columns(ds: Dataset, systems: list[System]) -> list[tuple[str, int]]:
    """The (group, column) cells the systems' runs fill in a folder dataset."""
    folder = ds.task.folder
    assert folder is not None
    return sorted({folder.cell(r.metrics) for s in systems for r in s.runs})


def _folder_table(ds: Dataset, systems: list[System]) -> dict[str, Any]:
    """A folder dataset (KITMUS suite): one run per data file, one column per run
    (:meth:`refbench.tasks.capabilities.FolderRuns.cell`), the task's first leaderboard
    metric, and each group's summary columns (WinoBias: Diff). Systems are ranked by their
    mean over the cells **every** system has, and each row says how many it has: a system
    scored on one subtask is never ranked above one scored on all of them by a mean over
    different subtasks."""
    folder = ds.task.folder
    assert folder is not None
    key = ds.view.leaderboard_columns[0][0]
    systems, partial = split_partial(ds, systems)
    filled = folder_columns(ds, systems)
    groups = list(dict.fromkeys(g for g, _ in filled))
    per_system = []
    for s in systems:
        by_col = {folder.cell(r.metrics): r for r in s.runs}
        per_system.append((s, {c: cell(r, key) for c, r in by_col.items()}))
    common = set(filled)
    for _, have in per_system:
        common &= {c for c, v in have.items() if v}
    columns: list[dict[str, Any]] = []
    for g in groups:
        columns += [{"group": g, "column": c, "label": folder.column_label(c)}
                    for gg, c in filled if gg == g]
        columns += [{"group": g, "summary": label}
                    for label, _ in folder.group_summary({})]
    rows: list[dict[str, Any]] = []
    for s, have in per_system:
        cells: list[dict[str, Any] | None] = []
        for g in groups:
            mine = {c: v for (gg, c), v in have.items() if gg == g and v}
            cells += [mine.get(c) for gg, c in filled if gg == g]
            values = {c: v["value"] for c, v in mine.items()}
            cells += [{"value": x, "ci": None, "method": None, "rid": None} if x is not None
                      else None for _, x in folder.group_summary(values)]
        own = [v["value"] for v in have.values() if v]
        shared = [v["value"] for c in common if (v := have.get(c))]
        rows.append({"system": s, "cells": cells, "coverage": len(own),
                     "mean": sum(own) / len(own) if own else None,
                     "common_mean": sum(shared) / len(shared) if shared else None})
    rows.sort(key=lambda r: (-(r["common_mean"] if r["common_mean"] is not None else -1),
                             -r["coverage"], -(r["mean"] or 0)))
    spans = [(g, sum(1 for c in columns if c["group"] == g)) for g in groups]
    return {"columns": columns, "rows": rows, "suite": True, "variants": spans,
            "blocks": column_blocks(spans), "metric": folder.caption,
            "n_columns": len(filled), "n_common": len(common), "partial": partial}


def column_blocks(spans: list[tuple[str, int]], width: int = SUITE_BLOCK_COLUMNS
                  ) -> list[dict[str, Any]]:
    """The column groups (variant, number of columns) cut into blocks of at most ``width``
    columns, never splitting a group: the released KITMUS suite's 24 subtask columns in one
    table are 1,600 px wide, so the leaderboard draws one table per block, one under the other,
    and fits a 1,366 px screen."""
    blocks: list[dict[str, Any]] = []
    start = 0
    for variant, span in spans:
        if not blocks or blocks[-1]["end"] - blocks[-1]["start"] + span > width:
            blocks.append({"variants": [], "start": start, "end": start})
        blocks[-1]["variants"].append((variant, span))
        blocks[-1]["end"] += span
        start += span
    return blocks


def _flat_table(ds: Dataset, systems: list[System]) -> dict[str, Any]:
    """One row per run on a data file, the task's leaderboard columns. When the runs answered
    different instances (``--limit``), each row also gets its accuracy on the instances every
    run answered, and the rows are ranked by it."""
    metrics = _columns(ds.task)
    systems, partial = split_partial(ds, systems)
    rows: list[dict[str, Any]] = []
    for s in systems:
        for r in s.runs:
            rows.append({"system": s, "run": r, "n": r.metrics.get("n"),
                         "cells": [cell(r, key) for key, _ in metrics]})
    used = [k for k in range(len(metrics)) if any(row["cells"][k] for row in rows)]
    for row in rows:
        row["cells"] = [row["cells"][k] for k in used]
    common = common_accuracy(ds, systems) if len({r["n"] for r in rows}) > 1 else None
    if common is not None:
        for row in rows:
            row["common"] = common["accuracy"].get(row["system"].sid)
        rows.sort(key=lambda r: -(r["common"] if r["common"] is not None else -1))
    else:
        rows.sort(key=lambda r: -(r["cells"][0]["value"] if r["cells"] and r["cells"][0]
                                  else 0))
    return {"columns": [metrics[k][1] for k in used], "rows": rows, "suite": False,
            "common": common, "partial": partial}


def common_accuracy(ds: Dataset, systems: list[System]) -> dict[str, Any] | None:
    """Each system's accuracy on the instances (with gold) that every system answered, from
    the dataset's index; None when the index is not built yet."""
    from refbench.web.params import catalog, connect
    from refbench.web.predictions import ensure_system

    cat = catalog()
    if not cat.index.is_current(ds):
        return None
    for s in systems:
        ensure_system(cat.index, ds, s)
    with connect(ds) as db:
        answered: dict[str, dict[int, int]] = {s.sid: {} for s in systems}
        marks = ",".join("?" * len(systems))
        for sid, n, correct in db.execute(
                f"SELECT sys, n, correct FROM preds WHERE sys IN ({marks}) AND correct IS "
                "NOT NULL", [s.sid for s in systems]):
            answered[sid][int(n)] = int(correct)
    shared = set.intersection(*(set(a) for a in answered.values())) if answered else set()
    return {"n": len(shared), "accuracy": {
        sid: (sum(a[k] for k in shared) / len(shared) if shared else None)
        for sid, a in answered.items()}}


def _table(ds: Dataset, systems: list[System]) -> dict[str, Any] | None:
    """A dataset's leaderboard table (None: nothing to show)."""
    if ds.path.is_dir() and ds.task.folder is not None \
            and len(ds.files) > 1:  # one run per file of a folder (a suite, WinoBias)
        table = _folder_table(ds, systems)
    else:
        table = _flat_table(ds, systems)
    # a table with only partial results still lists them (apart from the ranking)
    return table if table["rows"] or table.get("partial") else None


@bp.route("/leaderboard")
def leaderboard() -> str:
    cat = catalog()
    by_task: dict[str, list[dict[str, Any]]] = {}
    for ds in sorted(cat.datasets.values(), key=lambda d: (d.task.name, d.label)):
        systems = cat.systems(ds)
        if not systems:
            continue
        # kept while the dataset's runs are unchanged (and its index as it was: the common
        # instances of runs on different --limit need it)
        table = page_cache.table(f"leaderboard-{cat.index.is_current(ds)}", ds, systems,
                                 partial(_table, ds, systems))
        if table is None:
            continue
        by_task.setdefault(ds.task.name, []).append({"ds": ds, "table": table})
    return render_template("leaderboard.html", by_task=by_task)


@bp.route("/runs/<rid>.json")
def run_json(rid: str) -> Response:
    """A run's result as ``metrics.json`` serialises it (:meth:`Result.to_json`): the figures
    and coverage ``run`` printed, whatever version of refbench wrote the run."""
    run = catalog().run(rid)
    if run is None:
        abort(404, description=catalog().not_shown(rid))
    body = json.dumps({"run": run.rid, **run.result.to_json()}, indent=2, ensure_ascii=False,
                      default=str, sort_keys=True)
    return Response(body, mimetype="application/json")


@bp.route("/runs/<rid>")
def run_page(rid: str) -> str:
    cat = catalog()
    run = cat.run(rid)
    if run is None:
        abort(404, description=cat.not_shown(rid))
    ds = cat.dataset_of(run)
    system = cat.system_of(ds, run) if ds else None
    metrics = run.metrics
    task_cells = [(label, cell(run, key)) for key, label in _columns(find_task(run.task))]
    # A run on one file of a folder dataset (a KITMUS subtask) browses that file's instances:
    # the task says which facet values select them.
    # By the content the run read: a run on a copy of a subtask's file browses that subtask.
    own = ds.own_file(run.data, run.data_sha256) if ds is not None else None
    subset = ds.task.folder.run_facets(own, ds.path) \
        if ds is not None and ds.is_folder and ds.task.folder and own is not None else {}
    values: dict[str, Any] = {f"f.{k}": v for k, v in subset.items()}
    if ds is not None and ds.is_folder and not subset and system is not None:
        values["answered"] = "1"  # no facet selects its file: the instances it answered
    browse = url_for("browse.dataset", key=ds.key, sys=system.sid if system else None,
                     **values) if ds is not None else None
    plain = {k: v for k, v in metrics.items() if k not in ("provenance", "slices")}
    return render_template(
        "run.html", run=run, ds=ds, system=system, task_cells=task_cells, browse=browse,
        subset=subset,
        slices=metrics.get("slices") or {},
        metrics_json=json.dumps(plain, indent=2, ensure_ascii=False, default=str),
        provenance_json=json.dumps(metrics.get("provenance") or {}, indent=2,
                                   ensure_ascii=False, default=str))
