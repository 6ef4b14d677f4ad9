"""Reading a page's query string: dataset, search, slice filters, selected systems.

URL parameters (every view is a shareable URL): ``q`` (search text), ``mode=plain|advanced``
(plain words, or FTS5 syntax), ``field=<name>`` (search one named text field, e.g. KITMUS
``task`` or ``knowledge``), ``f.<slice>=<value>``,
``sys=<system id>`` (repeatable), ``c.<system id>=correct|incorrect|missing``, ``disagree=1``,
``answered=1|0`` (only instances every selected system answered), ``sort=index|disagreement``,
``after`` / ``before`` (page cursors).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from flask import abort, current_app, request

from refbench.web.catalog import Catalog
from refbench.web.datasets import Dataset
from refbench.web.index import facet_names, text_field_names
from refbench.web.predictions import ensure_system
from refbench.web.query import BadQuery, ListQuery
from refbench.web.runs import System

MAX_SYSTEMS = 8


def catalog() -> Catalog:
    cat: Catalog = current_app.config["CATALOG"]
    return cat


def dataset_or_404(key: str) -> Dataset:
    ds = catalog().datasets.get(key)
    if ds is None:
        abort(404, description=f"There is no dataset {key!r} in this app.")
    return ds


@contextmanager
def connect(ds: Dataset) -> Iterator[sqlite3.Connection]:
    db = catalog().index.connect(ds)
    try:
        yield db
    finally:
        db.close()


def selected_systems(ds: Dataset, *, default_all: bool = False) -> list[System]:
    """The systems named by ``sys`` (all of the dataset's, up to a limit, when none are named
    and ``default_all``), their predictions loaded into the index."""
    systems = {s.sid: s for s in catalog().systems(ds)}
    names = request.args.getlist("sys")
    for sid in names:
        if sid not in systems:
            raise BadQuery(f"unknown system {sid!r} for this dataset")
    if len(names) != len(set(names)):
        raise BadQuery("a system is selected twice")
    if len(names) > MAX_SYSTEMS:
        raise BadQuery(f"select at most {MAX_SYSTEMS} systems")
    chosen = [systems[s] for s in names] if names else (
        list(systems.values())[:MAX_SYSTEMS] if default_all else [])
    loaded = []
    for s in chosen:
        counts = ensure_system(catalog().index, ds, s)
        if counts["matched"] or names:
            loaded.append(s)
    return loaded


def list_query(ds: Dataset, systems: list[System], *, default_sort: str = "index",
               answered_by_default: bool = False) -> ListQuery:
    facets = {k[2:]: v for k, v in request.args.items() if k.startswith("f.") and v != ""}
    correctness = {k[2:]: v for k, v in request.args.items() if k.startswith("c.") and v}
    query = ListQuery(q=request.args.get("q", ""), facets=facets,
                      systems=[s.sid for s in systems], correctness=correctness,
                      disagree=request.args.get("disagree") == "1",
                      answered=request.args.get("answered", "1" if answered_by_default
                                                else "0") == "1",
                      sort=request.args.get("sort", default_sort),
                      mode=request.args.get("mode") or "plain",
                      field=request.args.get("field", ""))
    query.validate(facet_names(ds.view), text_field_names(ds.view))
    return query


def int_arg(name: str, default: int, *, low: int, high: int) -> int:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadQuery(f"{name} must be an integer, got {raw!r}") from None
    if not low <= value <= high:
        raise BadQuery(f"{name} must be between {low} and {high}")
    return value
