"""Compare on a documents task (TNE): every system's headline score per document
(:meth:`refbench.tasks.capabilities.Documents.document_scores`, labeled F1), a paired bootstrap
and a sign-flip permutation test on the document-level differences for every pair of systems,
and the documents ordered by how far the first two systems differ, so the documents that make a
difference are read first."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path
from typing import Any

from flask import request

from refbench.core.errors import RefbenchError
from refbench.metrics.paired import BOOTSTRAP_RESAMPLES, DEFAULT_SEED, holm, paired_means_test
from refbench.web.datasets import Dataset
from refbench.web.params import connect, int_arg
from refbench.web.runs import System

DOCUMENTS_SHOWN = 50


def document_comparison(ds: Dataset, systems: list[System]) -> dict[str, Any]:
    from refbench.web.index import signature

    documents = ds.task.documents
    assert documents is not None, "a comparison over documents is for a documents task"
    by_sys: dict[str, dict[str, float]] = {}
    problems: dict[str, str] = {}
    for s in systems:
        try:
            by_sys[s.sid] = documents.document_scores(ds.files, Path(s.runs[0].predictions),
                                                      stamp=signature(ds))
        except RefbenchError as exc:
            problems[s.sid] = exc.render()
    resamples = int_arg("resamples", BOOTSTRAP_RESAMPLES, low=100, high=20000)
    ok = [s for s in systems if s.sid in by_sys]
    pairs: list[dict[str, Any]] = []
    for a, b in combinations(ok, 2):
        docs = sorted(set(by_sys[a.sid]) & set(by_sys[b.sid]))
        r = paired_means_test([by_sys[a.sid][d] for d in docs], [by_sys[b.sid][d] for d in docs],
                              resamples=resamples, seed=DEFAULT_SEED)
        pairs.append({"a": a, "b": b, "r": r})
    for name in ("bootstrap_p", "permutation_p"):
        adjusted = holm([getattr(p["r"], name) if p["r"] else None for p in pairs])
        for p, value in zip(pairs, adjusted, strict=True):
            p[f"holm_{name}"] = value
    rows: list[dict[str, Any]] = []
    n_differ = 0
    if len(ok) >= 2:
        a_scores, b_scores = by_sys[ok[0].sid], by_sys[ok[1].sid]
        with connect(ds) as db:
            where = dict(db.execute("SELECT iid, n FROM items").fetchall())
        docs = sorted(set(a_scores) & set(b_scores),
                      key=lambda d: (-abs(a_scores[d] - b_scores[d]), where.get(d, 0), d))
        n_differ = sum(1 for d in docs if a_scores[d] != b_scores[d])
        shown = int_arg("docs", DOCUMENTS_SHOWN, low=1, high=100000)
        for d in docs[:shown]:
            rows.append({"iid": d, "n": where.get(d),
                         "scores": [by_sys[s.sid].get(d) for s in ok],
                         "diff": a_scores[d] - b_scores[d]})
    return {"doc_pairs": pairs, "doc_rows": rows, "doc_problems": problems,
            "doc_systems": ok, "n_differ": n_differ, "doc_resamples": resamples,
            "doc_seed": DEFAULT_SEED, "several": len(pairs) > 1,
            "docs_total": len(by_sys[ok[0].sid]) if ok else 0,
            "sys_args": request.args.getlist("sys")}
