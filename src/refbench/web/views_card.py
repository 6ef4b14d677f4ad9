"""The model card page: every recorded system x every benchmark, each cell the benchmark's
headline figures with their 95% intervals (each by its one named method) and n of N, built by
the same :func:`refbench.reporting.card.build_card` as ``refbench report --card``, from the
runs' :class:`~refbench.core.result.Result` objects; ``/card.json`` is what ``report --json``
prints of the same runs. Each cell links to its runs, each benchmark to the compare page of a
dataset that holds it. A cell whose runs' records are not verified (written before seals) is
marked so; a refused record is not among the served runs."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, render_template, url_for

from refbench.reporting.card import Entry, ModelCard, build_card
from refbench.web.params import catalog
from refbench.web.runs import RunInfo
from refbench.web.verdicts import system_unverified

bp = Blueprint("card", __name__)


def _card() -> tuple[ModelCard, dict[str, str], dict[str, str]]:
    """The card of the served runs, the run id of each entry's folder, and the compare page
    of each benchmark (where a served dataset holds it)."""
    cat = catalog()
    entries: list[Entry] = []
    rids: dict[str, str] = {}
    by_source: dict[str, RunInfo] = {}
    for run in cat.runs():
        source = str(run.predictions.parent)
        entries.append(Entry(run.result, source, run.store_id))
        rids[source] = run.rid
        by_source[source] = run
    card = build_card(entries)
    compare: dict[str, str] = {}
    for cell in card.cells.values():
        if cell.benchmark.name in compare:
            continue
        for e in cell.entries:
            ds = cat.dataset_of(by_source[e.source or ""])
            if ds is not None:
                compare.setdefault(cell.benchmark.name, url_for("compare.compare", data=ds.key))
    return card, rids, compare


@bp.route("/card")
def model_card() -> str:
    from refbench.reporting.card_render import figure_text

    card, rids, compare = _card()
    served = {r.rid: r for r in catalog().runs()}
    rows: list[dict[str, Any]] = []
    for s in card.systems:
        cells = []
        for b in card.benchmarks:
            c = card.cell(s, b.name)
            links = [url_for("board.run_page", rid=rids[e.source or ""]) for e in c.entries] \
                if c else []
            # a record not verified (written before seals) is marked in its cell
            why = system_unverified([served[r] for e in c.entries
                                     if (r := rids[e.source or ""]) in served]) if c else ""
            for metric, _ in card.metrics(b):
                f = next((x for x in c.figures if x.metric == metric), None) if c else None
                cells.append({"text": figure_text(f) if f else "", "method": f.method if f
                              else None, "partial": bool(f and f.partial), "links": links,
                              "unverified": why})
        rows.append({"system": s, "cells": cells})
    groups = [{"name": b.name, "task": b.task, "metrics": card.metrics(b),
               "compare": compare.get(b.name)} for b in card.benchmarks]
    return render_template("model_card.html", groups=groups, rows=rows, notes=card.notes)


@bp.route("/card.json")
def model_card_json() -> Response:
    card, _, _ = _card()
    return Response(json.dumps(card.to_json(), ensure_ascii=False), mimetype="application/json")
