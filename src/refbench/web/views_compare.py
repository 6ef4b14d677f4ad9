"""Compare two or more systems on one dataset: accuracy per slice side by side, paired
significance for every pair (McNemar's exact test and a paired bootstrap), and the instance
list filtered by each system's correctness and ordered by disagreement."""

from __future__ import annotations

import sqlite3
from functools import lru_cache
from itertools import combinations
from typing import Any

from flask import Blueprint, render_template, request

from refbench.metrics.intervals import wilson
from refbench.metrics.paired import (
    BOOTSTRAP_RESAMPLES,
    DEFAULT_SEED,
    holm,
    paired_test,
)
from refbench.tasks.capabilities import WebView
from refbench.web import index as idx
from refbench.web.datasets import Dataset
from refbench.web.matrix import compare_matrix
from refbench.web.params import catalog, connect, dataset_or_404, int_arg, list_query
from refbench.web.predictions import correctness_columns, ensure_system
from refbench.web.query import BadQuery, Lister
from refbench.web.records import facet_labels
from refbench.web.runs import System

bp = Blueprint("compare", __name__)


def _systems(ds: Dataset) -> list[System]:
    available = {s.sid: s for s in catalog().systems(ds)}
    names = request.args.getlist("sys")
    unknown = [n for n in names if n not in available]
    if unknown:
        raise BadQuery(f"unknown system(s) for this dataset: {', '.join(unknown)}")
    if len(set(names)) != len(names):
        raise BadQuery("a system is selected twice")
    chosen = [available[n] for n in names]
    for s in chosen:
        ensure_system(catalog().index, ds, s)
    return chosen


def slice_table(db: sqlite3.Connection, view: WebView, sids: list[str]
                ) -> list[dict[str, Any]]:
    """Accuracy of each system overall and on every value of every slice (from the counts
    made when each system's predictions were loaded)."""
    marks = ",".join("?" * len(sids))
    rows = db.execute(f"SELECT slice, value, sys, n, correct FROM slice_counts "
                      f"WHERE sys IN ({marks})", sids).fetchall()
    labels = facet_labels(view)
    out = []
    for name in ("all", *idx.facet_names(view)):
        values: dict[str, dict[str, dict[str, Any]]] = {}
        for group, value, sid, n, right in rows:
            if group == name and n:
                values.setdefault(str(value), {})[sid] = {
                    "n": int(n), "accuracy": right / n, "ci": wilson(int(right), int(n))}
        if not values or (name != "all" and len(values) < 2):
            continue
        # the best figure of a row is bold only where every system answered as many instances
        # (a system scored on 2,000 instances is never ranked against one scored on 48,000)
        unequal = {v for v, by in values.items()
                   if len(by) < len(sids) or len({c["n"] for c in by.values()}) > 1}
        best = {v: max((c["accuracy"] for c in by.values()), default=None)
                if v not in unequal else None for v, by in values.items()}
        ordered = sorted(values.items(), key=lambda x: idx_natural(x[0]))
        out.append({"name": name, "label": labels.get(name, name), "rows": ordered,
                    "best": best, "unequal": unequal})
    return out


def idx_natural(value: str) -> tuple[int, int | str]:
    return (0, int(value)) if value.isdigit() else (1, value)


@lru_cache(maxsize=64)
def _paired(index_path: str, a: str, b: str, stamp: tuple[str, str], resamples: int,
            seed: int) -> dict[str, Any] | None:
    db = sqlite3.connect(index_path)
    try:
        x, y = correctness_columns(db, a, b)
    finally:
        db.close()
    result = paired_test(x, y, resamples=resamples, seed=seed)
    return None if result is None else result.__dict__


@bp.route("/compare")
def compare() -> str:
    cat = catalog()
    key = request.args.get("data")
    if not key:
        choices = [(ds, cat.systems(ds)) for ds in cat.datasets.values()]
        return render_template("compare_pick.html",
                               choices=[(d, s) for d, s in choices if len(s) > 1])
    ds = dataset_or_404(key)
    systems = _systems(ds)
    context: dict[str, Any] = {"ds": ds, "systems": systems, "all_systems": cat.systems(ds)}
    if len(systems) < 2:
        return render_template("compare.html", ready=False, **context)
    if ds.task.documents is not None:
        from refbench.web.compare_documents import document_comparison

        # each system's figures, as its run recorded them (the same Result as every page)
        context["scores"] = {s.sid: s.runs[0].metrics for s in systems}
        context.update(document_comparison(ds, systems))
        return render_template("compare_documents.html", **context)
    query = list_query(ds, systems, default_sort="disagreement", answered_by_default=True)
    with connect(ds) as db:
        slices = slice_table(db, ds.view, [s.sid for s in systems])
        lister = Lister(db, query)
        rows, has_before, has_after = lister.page(after=request.args.get("after"),
                                                  before=request.args.get("before"))
        matching = lister.count()
        total = idx.count(db)
        axes = ds.view.compare_matrix
        matrix = compare_matrix(db, axes[0], axes[1], systems[0].sid, systems[1].sid) \
            if axes and set(axes) <= set(idx.facet_names(ds.view)) else None
    context.update(matrix=matrix, ready=True, slices=slices, rows=rows, has_before=has_before,
                   has_after=has_after, matching=matching, total=total, query=query,
                   facet_labels=facet_labels(ds.view),
                   pairs=list(combinations(systems, 2)))
    return render_template("compare.html", **context)


@bp.route("/compare/significance")
def significance() -> str:
    """Paired tests for every pair of the selected systems (a fragment: the bootstrap takes a
    moment on large datasets, so the compare page loads it after itself)."""
    ds = dataset_or_404(request.args.get("data", ""))
    systems = _systems(ds)
    if len(systems) < 2:
        raise BadQuery("select two or more systems")
    resamples = int_arg("resamples", BOOTSTRAP_RESAMPLES, low=100, high=20000)
    seed = int_arg("seed", DEFAULT_SEED, low=0, high=2**31 - 1)
    path = str(catalog().index.ensure(ds))
    results: list[dict[str, Any]] = []
    for a, b in combinations(systems, 2):
        stamp = (a.stamp, b.stamp)
        results.append({"a": a, "b": b,
                        "r": _paired(path, a.sid, b.sid, stamp, resamples, seed)})
    tested = [item["r"] for item in results]
    for name in ("mcnemar_p", "bootstrap_p"):
        adjusted = holm([None if r is None else r[name] for r in tested])
        for item, value in zip(results, adjusted, strict=True):
            item[f"holm_{name}"] = value
    return render_template("_significance.html", results=results, resamples=resamples,
                           seed=seed, ds=ds, several=len(results) > 1)
