"""Home, dataset and instance pages (and their htmx fragments)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from refbench.web import index as idx
from refbench.web.datasets import Dataset
from refbench.web.instance_views import system_answers
from refbench.web.params import (
    catalog,
    connect,
    dataset_or_404,
    int_arg,
    list_query,
    selected_systems,
)
from refbench.web.predictions import outputs_for
from refbench.web.query import Lister
from refbench.web.records import facet_labels

bp = Blueprint("browse", __name__)


@bp.route("/")
def home() -> str:
    cat = catalog()
    rows = []
    for ds in cat.datasets.values():
        current = cat.index.is_current(ds)
        n = None
        if current:
            with connect(ds) as db:
                n = idx.count(db)
        rows.append({"ds": ds, "n": n, "indexed": current,
                     "systems": len(cat.systems(ds))})
    from refbench.web.run_groups import group_runs, hidden_runs

    runs = cat.runs()
    wanted = request.args.get("runs", "")
    groups = group_runs(cat, runs, wanted)
    return render_template("home.html", datasets=rows, runs=runs, run_groups=groups,
                           run_filter=wanted, hidden=hidden_runs(cat, runs, wanted),
                           shown=len({r.rid for g in groups for s in g.systems
                                      for r in s.runs}),
                           skipped=cat.skipped + cat.run_problems,
                           store=cat.config.store)


@bp.route("/data/<key>")
def dataset(key: str) -> str | Response:
    ds = dataset_or_404(key)
    opening = _split_with_runs(ds) if not request.args else None
    if opening is not None:  # a dataset of several splits opens on the one its runs are on
        args: dict[str, Any] = {"f.split": opening}
        return redirect(url_for("browse.dataset", key=key, **args))
    systems = selected_systems(ds)
    query = list_query(ds, systems)
    with connect(ds) as db:
        lister = Lister(db, query)
        rows, has_before, has_after = lister.page(after=request.args.get("after"),
                                                  before=request.args.get("before"))
        total = idx.count(db)
        matching = lister.count()
        facets = lister.facet_counts(idx.facet_names(ds.view))
        n_problems, problems = idx.problems(db)
    context = {"n_problems": n_problems, "problems": problems, "ds": ds, "rows": rows,
               "has_before": has_before, "has_after": has_after,
               "total": total, "matching": matching, "facets": facets,
               "facet_labels": facet_labels(ds.view), "query": query,
               "systems": systems, "all_systems": catalog().systems(ds)}
    if request.headers.get("HX-Request") and request.headers.get("HX-Target") == "listing":
        return render_template("_listing.html", **context)
    return render_template("dataset.html", **context)


def _split_with_runs(ds: Dataset) -> str | None:
    """The one split every run on the dataset answered, when the dataset holds several
    splits (WinoBias: dev and test; a KITMUS suite: train, validation, test); else None."""
    if "split" not in idx.facet_names(ds.view):
        return None
    splits = {r.result.data.split for s in catalog().systems(ds) for r in s.runs
              if r.result.data.split}
    if len(splits) != 1:
        return None
    with connect(ds) as db:
        held = {str(v) for (v,) in db.execute("SELECT DISTINCT f_split FROM items")}
    (split,) = splits
    return split if split in held and len(held) > 1 else None


@bp.route("/data/<key>/jump")
def jump(key: str) -> Response:
    ds = dataset_or_404(key)
    with connect(ds) as db:
        total = idx.count(db)
    if total == 0:
        abort(404, description="This dataset has no instances.")
    # "go to" counts from 1 as the page's "instance 15 of 20" does; the URL's n from 0
    n = int_arg("i", 1, low=1, high=total) - 1
    return redirect(url_for("browse.instance", key=key, n=n) + _query(exclude="i"))


@bp.route("/data/<key>/id/<path:iid>")
def by_id(key: str, iid: str) -> Response:
    ds = dataset_or_404(key)
    with connect(ds) as db:
        n = idx.find_n(db, iid, ds.view)
    if n is None:
        abort(404, description=f"No instance with id {iid!r} in this dataset.")
    return redirect(url_for("browse.instance", key=key, n=n) + _query())


def _query(exclude: str = "") -> str:
    """The current query string (repeated parameters kept), without one parameter."""
    from urllib.parse import urlencode

    items = [(k, v) for k, v in request.args.items(multi=True) if k != exclude]
    return "?" + urlencode(items) if items else ""


def _instance(ds: Dataset, n: int) -> dict[str, Any]:
    with connect(ds) as db:
        item = idx.item(db, n)
        if item is None:
            abort(404, description=f"This dataset has no instance {n}.")
        return item


@bp.route("/data/<key>/<int:n>")
def instance(key: str, n: int) -> str:
    ds = dataset_or_404(key)
    systems = selected_systems(ds, default_all="sys" not in request.args)
    query = list_query(ds, [s for s in systems if s.sid in request.args.getlist("sys")])
    item = _instance(ds, n)
    payload = item["payload"]
    with connect(ds) as db:
        lister = Lister(db, query)
        prev_n, next_n = lister.neighbours(n)
        outputs = outputs_for(db, n, [s.sid for s in systems])
        total = idx.count(db)
        place = _place(lister, n, total)
    context: dict[str, Any] = {"ds": ds, "item": item, "p": payload, "prev_n": prev_n,
                               "next_n": next_n, "total": total, "place": place,
                               "systems": systems,
                               "all_systems": catalog().systems(ds), "query": query}
    view = ds.view
    selected = {s.sid: outputs[s.sid] for s in systems if s.sid in outputs}
    context.update(view.context(payload, args=request.args, outputs=selected))
    context["labels"] = {s.sid: s.label for s in systems}
    if ds.task.documents is None:
        context["answers"] = system_answers(payload, systems, outputs)
        context["twin"] = _twin(ds, item)
    return render_template(view.template_for(payload), **context)


def _place(lister: Lister, n: int, total: int) -> dict[str, int] | None:
    """The instance's position within a filtered list and the list's size ("12 of 1,190"),
    None when the list is the whole dataset (the page then says "instance n of total")."""
    selection = lister.count()
    if selection == total:
        return None
    return {"position": lister.position(n) or 0, "selection": selection}


@bp.route("/data/<key>/<int:n>/np/<np_id>")
def np_fragment(key: str, n: int, np_id: str) -> str:
    """The links of one NP (the panel a click on an NP fills)."""
    ds = dataset_or_404(key)
    if ds.task.documents is None:
        abort(404, description="NP links exist only for documents (TNE).")
    systems = selected_systems(ds, default_all="sys" not in request.args)
    item = _instance(ds, n)
    with connect(ds) as db:
        outputs = outputs_for(db, n, [s.sid for s in systems])
    selected = {s.sid: outputs[s.sid] for s in systems if s.sid in outputs}
    view = ds.view.context(item["payload"], args={"np": np_id}, outputs=selected)["doc"]
    if view["links"] is None:
        abort(404, description=f"The document has no NP {np_id!r}.")
    return render_template("_np_links.html", doc=view, ds=ds, item=item,
                           labels={s.sid: s.label for s in systems})


def _twin(ds: Dataset, item: dict[str, Any]) -> dict[str, Any] | None:
    """The instance's switched twin: KnowRef ``:switched`` copies, WinoGrande ``-1``/``-2``
    pairs, WSC neighbours; found in this dataset or another one of the same task (where a
    switched copy is usually kept). A twin always has the same candidates and another text,
    so a file that merely reuses ids (KnowRef TSV splits number from 0) never links."""
    iid, payload = item["iid"], item["payload"]
    view = ds.view
    wanted = view.twin_ids(iid)
    names = sorted(c["text"] for c in payload["candidates"])

    def is_twin(other: dict[str, Any] | None) -> bool:
        return other is not None and other["payload"].get("text") != payload.get("text") \
            and sorted(c["text"] for c in other["payload"]["candidates"]) == names

    cat = catalog()
    for other in [ds, *(d for d in cat.datasets.values() if d.task is ds.task and d != ds)]:
        if other != ds and not cat.index.is_current(other):
            continue
        with connect(other) as db:
            for want in wanted:
                if other == ds and want == iid:
                    continue
                n = idx.find_n(db, want, other.view)
                if n is not None and is_twin(idx.item(db, n)):
                    return {"ds": other, "n": n, "iid": want}
            if other == ds and view.twin_neighbours and not wanted:
                for n in (item["n"] - 1, item["n"] + 1):
                    near = idx.item(db, n) if n >= 0 else None
                    if near is not None and is_twin(near) and near["gold"] != item["gold"]:
                        return {"ds": ds, "n": n, "iid": near["iid"]}
    return None


@bp.route("/data/<key>/<int:n>/evidence/<sid>")
def evidence(key: str, n: int, sid: str) -> str:
    """The description sentences a cross-encoder system selected (free-text candidates)."""
    from refbench.web.evidence import evidence_for
    from refbench.web.instance_views import highlight_sentences

    ds = dataset_or_404(key)
    system = next((s for s in catalog().systems(ds) if s.sid == sid), None)
    if not ds.view.has_evidence or system is None:
        abort(404, description="No such system with evidence for this dataset.")
    item = _instance(ds, n)
    run = system.runs[0]
    found = evidence_for(ds.task, run.data or ds.files[0], item["iid"], run)
    for c in found.get("candidates", []):
        c["segments"] = highlight_sentences(c["description"], c["chosen"])
    return render_template("_evidence.html", ev=found, system=system)
