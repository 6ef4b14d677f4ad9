"""Routes of the charts (:mod:`refbench.web.charts`), served as ``image/svg+xml`` and embedded
in the run and compare pages as ``<img>``, and the template globals that say which charts a
page has.

A chart is drawn once per state of what it shows and kept (a small in-memory cache keyed by
the run or systems, their predictions' signatures and the dataset index's signature), so a
page view after the first costs nothing. Matplotlib's pyplot is not thread-safe: drawing is
serialised by one lock. A page lists the slice and score charts by a cheap look at what the run
recorded. The task's own figure and the documents' scores are known only by drawing them, which
a page never waits for (matplotlib's import alone takes seconds): until one is drawn (on its own
request, then kept) the page lists it as optional, and the page's script removes an optional
chart that turns out not to exist (its URL answers 204, no content); once drawn, a page lists
it only if there is one. A chart that fails is left off the page (and logged), never the page
with it.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from flask import Blueprint, Response, abort, current_app, request, url_for

from refbench.core.errors import RefbenchError
from refbench.core.io import read_jsonl
from refbench.tasks.lookup import find_task
from refbench.web import charts
from refbench.web.datasets import Dataset
from refbench.web.params import catalog, connect, dataset_or_404
from refbench.web.predictions import ensure_system
from refbench.web.records import facet_labels
from refbench.web.runs import RunInfo, System, chance

bp = Blueprint("charts", __name__)

CACHE_SIZE = 128
RUN_CHARTS = ("slices", "figure", "scores", "documents")
COMPARE_CHARTS = ("slices", "figure", "documents")
_cache: OrderedDict[Hashable, bytes | None] = OrderedDict()
_cache_lock = threading.Lock()
_draw_lock = threading.Lock()
PENDING = b"<!-- not drawn yet -->"  # what a look (peek=True) at a chart not yet drawn gives


def cached(key: Hashable, draw: Callable[[], bytes | None], *, peek: bool = False
           ) -> bytes | None:
    """The chart for ``key``, drawn at most once while it stays among the last
    ``CACHE_SIZE`` charts; with ``peek``, :data:`PENDING` instead of drawing it."""
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    if peek:
        return PENDING
    with _draw_lock:
        with _cache_lock:
            if key in _cache:
                return _cache[key]
        data = draw()
    with _cache_lock:
        _cache[key] = data
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return data


def _file_stamp(run: RunInfo) -> str:
    try:
        st = run.predictions.stat()
    except OSError:
        return "gone"
    return f"{st.st_size}|{st.st_mtime_ns}"


def _index_stamp(ds: Dataset) -> str:
    from refbench.web.index import signature

    return signature(ds)


def _label(run: RunInfo, system: System | None) -> str:
    return system.label if system is not None else run.name


# -- what a run's charts show --------------------------------------------------------------

def _has_scores(run: RunInfo) -> bool:
    """Whether the run's first prediction carries two or more scores (cheap: one line)."""
    try:
        for _, obj in read_jsonl(run.predictions):
            scores = obj.get("scores")
            return isinstance(scores, list) and len(scores) >= 2
    except (OSError, RefbenchError):
        return False
    return False


def _run_slices(run: RunInfo, ds: Dataset | None, system: System | None) -> bytes | None:
    slices = run.metrics.get("slices") or {}
    labels = facet_labels(ds.view) if ds is not None else {}
    groups = charts.run_slice_groups(slices, _label(run, system), labels)
    if not groups:
        return None
    return charts.slice_chart(groups, [_label(run, system)], show_n=True,
                              title=f"Accuracy by slice: {_label(run, system)}",
                              chance=chance(run))


def _system_results(system: System, split: Any = None) -> list[dict[str, Any]]:
    """The metrics of a system's runs (of one split, when given), labelled as the app labels
    the system."""
    return [dict(r.metrics, system=system.label) for r in system.runs
            if r.metrics and (split is None or r.result.data.split == split)]


def _task_figure(task_name: str, results: list[dict[str, Any]]) -> bytes | None:
    task = find_task(task_name)
    if task is None:
        return None
    try:
        return charts.task_chart(task, results)
    except RefbenchError:
        return None  # results the task's figure cannot place (a file outside its layout)


def _run_scores(run: RunInfo, ds: Dataset | None, system: System | None) -> bytes | None:
    gold: dict[str, int | None] = {}
    if ds is not None and ds.task.documents is None:
        with connect(ds) as db:
            gold = dict(db.execute("SELECT key, gold FROM items").fetchall())
    scores: list[list[Any]] = []
    correct: list[bool | None] = []
    for _, obj in read_jsonl(run.predictions):
        s = obj.get("scores")
        if not isinstance(s, list) or not all(
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                for v in s):
            continue  # scores the chart cannot place: left out, as a line without scores is
        scores.append(s)
        g = gold.get(ds.view.match_key(str(obj.get("id", "")))) if ds is not None else None
        correct.append(None if g is None else obj.get("answer") == g)
    try:
        return charts.score_chart(scores, correct, title=f"Scores of {_label(run, system)}")
    except (ValueError, OverflowError):  # a range no histogram spans (1e308 and -1e308)
        return None


def _document_scores(ds: Dataset, system: System) -> dict[str, float]:
    documents = ds.task.documents
    assert documents is not None
    return documents.document_scores(ds.files, system.runs[0].predictions,
                                     stamp=_index_stamp(ds))


def _run_documents(run: RunInfo, ds: Dataset, system: System | None) -> bytes | None:
    documents = ds.task.documents
    if documents is None:
        return None
    try:
        scores = documents.document_scores(ds.files, run.predictions, stamp=_index_stamp(ds))
    except RefbenchError:
        return None  # a file for other documents: the page says why beside its scores
    return charts.documents_chart({_label(run, system): list(scores.values())},
                                  title=f"Per-document labeled F1 on {ds.label}")


def run_chart(kind: str, run: RunInfo, *, peek: bool = False) -> bytes | None:
    """One chart of a run's page (None: the run has no such chart; with ``peek``, the task's
    figure or the documents' chart not drawn yet is :data:`PENDING`)."""
    cat = catalog()
    ds = cat.dataset_of(run)
    system = cat.system_of(ds, run) if ds is not None else None
    stamp = (str(cat.config.index_folder), run.rid, _file_stamp(run))
    if kind == "slices":
        return cached(("run", kind, *stamp), lambda: _run_slices(run, ds, system))
    if kind == "figure" and system is not None:
        results = _system_results(system, run.result.data.split)
        task = find_task(run.task)
        if not results or task is None or task.report is None or not task.report.draws_figure():
            return None
        return cached(("run", kind, *stamp, system.stamp),
                      lambda: _task_figure(run.task, results), peek=peek)
    if kind == "scores" and _has_scores(run):
        sig = _index_stamp(ds) if ds is not None else ""
        return cached(("run", kind, *stamp, sig), lambda: _run_scores(run, ds, system))
    if kind == "documents" and ds is not None:
        return cached(("run", kind, *stamp, _index_stamp(ds)),
                      lambda: _run_documents(run, ds, system), peek=peek)
    return None


# -- what a comparison's charts show --------------------------------------------------------

def _compare_slices(ds: Dataset, systems: list[System]) -> bytes | None:
    from refbench.web.views_compare import slice_table

    label = {s.sid: s.label for s in systems}
    with connect(ds) as db:
        table = slice_table(db, ds.view, [s.sid for s in systems])
    groups = [(str(g["label"]), [(str(value), {label[sid]: (c["accuracy"], c["n"])
                                               for sid, c in by.items()})
                                 for value, by in g["rows"]])
              for g in table]
    if not groups:
        return None
    return charts.slice_chart(groups, [s.label for s in systems],
                              title=f"Accuracy by slice on {ds.label}",
                              chance=_one_chance(r for s in systems for r in s.runs))


def _one_chance(runs: Iterable[RunInfo]) -> float | None:
    """The chance level the runs share (None as soon as two differ: a KITMUS suite's 2, 3
    and 4 entities, so its files are not all read to learn it)."""
    seen: set[float | None] = set()
    for r in runs:
        seen.add(chance(r))
        if len(seen) > 1:
            return None
    return seen.pop() if seen else None


def _compare_documents(ds: Dataset, systems: list[System]) -> bytes | None:
    by: dict[str, list[float]] = {}
    for s in systems:
        try:
            by[s.label] = list(_document_scores(ds, s).values())
        except RefbenchError:
            continue  # a file for other documents: the page says so beside its table
    return charts.documents_chart(by, title=f"Per-document labeled F1 on {ds.label}")


def compare_chart(kind: str, ds: Dataset, systems: list[System], *, peek: bool = False
                  ) -> bytes | None:
    """One chart of the compare page of ``systems`` on ``ds`` (None: no such chart; with
    ``peek``, the task's figure or the documents' chart not drawn yet is :data:`PENDING`)."""
    stamp = (str(catalog().config.index_folder), ds.key, _index_stamp(ds),
             tuple((s.sid, s.stamp) for s in systems))
    if ds.task.documents is not None:
        if kind != "documents":
            return None
        return cached(("compare", kind, *stamp), lambda: _compare_documents(ds, systems),
                      peek=peek)
    if kind == "slices":
        for s in systems:
            ensure_system(catalog().index, ds, s)
        return cached(("compare", kind, *stamp), lambda: _compare_slices(ds, systems))
    if kind == "figure":
        results = [r for s in systems for r in _system_results(s)]
        if ds.task.report is None or not ds.task.report.draws_figure() or not results:
            return None
        return cached(("compare", kind, *stamp), lambda: _task_figure(ds.task.name, results),
                      peek=peek)
    return None


def _chosen_systems(ds: Dataset) -> list[System]:
    available = {s.sid: s for s in catalog().systems(ds)}
    names = request.args.getlist("sys")
    if not names or len(set(names)) != len(names) or any(n not in available for n in names):
        abort(404, description="A comparison's chart is of some of the dataset's systems.")
    return [available[n] for n in names]


# -- routes and what the pages list ----------------------------------------------------------

def _svg(data: bytes | None) -> Response:
    if data is None:  # a chart of a known kind with nothing to show for these runs: no
        # content (not an error status, which a browser logs for an optional chart's image)
        return Response(status=204, headers={"Cache-Control": "no-cache"})
    resp = Response(data, mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-cache"
    resp.add_etag()
    resp.make_conditional(request)  # 304 when the browser holds this chart already
    return resp


@bp.route("/charts/runs/<rid>/<kind>.svg")
def run_svg(rid: str, kind: str) -> Response:
    run = catalog().run(rid)
    if run is None or kind not in RUN_CHARTS:
        abort(404, description="There is no such chart.")
    return _svg(run_chart(kind, run))


@bp.route("/charts/compare/<kind>.svg")
def compare_svg(kind: str) -> Response:
    ds = dataset_or_404(request.args.get("data", ""))
    if kind not in COMPARE_CHARTS:
        abort(404, description="There is no such chart.")
    return _svg(compare_chart(kind, ds, _chosen_systems(ds)))


ALT = {"slices": "Bar chart: accuracy on each slice value with 95% intervals",
       "figure": "The task's own figure (as refbench report --plot draws it)",
       "scores": "Histograms of the run's scores and of the margin between its two highest",
       "documents": "Histogram of labeled F1 per document"}


def _listed(kinds: tuple[str, ...], check: Callable[[str], bool | None],
            url: Callable[[str], str]) -> list[dict[str, Any]]:
    """The charts ``check`` says a page has (None: not known until drawn, listed as optional)."""
    out = []
    for kind in kinds:
        try:
            ok = check(kind)
        except Exception:  # a chart must never take its page down with it
            current_app.logger.exception("chart %s could not be drawn", kind)
            ok = False
        if ok is None or ok:
            out.append({"kind": kind, "url": url(kind), "alt": ALT[kind],
                        "optional": ok is None})
    return out


def _known(chart: bytes | None) -> bool | None:
    """Whether a looked-at chart exists: None while it is not drawn yet."""
    return None if chart is PENDING else chart is not None


def _run_applies(kind: str, run: RunInfo) -> bool | None:
    if kind == "figure":  # known only by drawing it, which the page leaves to the chart's URL
        return _known(run_chart(kind, run, peek=True))
    if kind == "slices":
        return bool(run.metrics.get("slices"))
    if kind == "scores":
        return _has_scores(run)
    ds = catalog().dataset_of(run)
    return ds is not None and ds.task.documents is not None and _known(
        run_chart(kind, run, peek=True))


@bp.app_template_global()
def run_charts(run: RunInfo) -> list[dict[str, Any]]:
    """The charts of a run's page: kind, URL and alternative text of each."""
    return _listed(RUN_CHARTS, lambda k: _run_applies(k, run),
                   lambda k: url_for("charts.run_svg", rid=run.rid, kind=k))


@bp.app_template_global()
def compare_charts(ds: Dataset, systems: list[System]) -> list[dict[str, Any]]:
    """The charts of a compare page."""
    sids = [s.sid for s in systems]

    def applies(kind: str) -> bool | None:
        if not systems:
            return False
        if kind == "slices" and ds.task.documents is None:
            return True
        return _known(compare_chart(kind, ds, systems, peek=True))

    return _listed(COMPARE_CHARTS, applies,
                   lambda k: url_for("charts.compare_svg", kind=k, data=ds.key, sys=sids))
