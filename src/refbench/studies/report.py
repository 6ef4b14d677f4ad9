"""Progress and agreement of a study (or of an answers CSV from anywhere).

Choice studies (KITMUS validation, and any ``item,annotator,label`` CSV): Fleiss' kappa,
Krippendorff's alpha (nominal, with "can't say" as a category and again as missing), percent
agreement, each item's majority, and accuracy against gold per condition, per annotator and by
variant: the paper's comparison with and without the knowledge text. Gold-check items are
reported apart (per-annotator accuracy) and kept out of every other figure. Other study types
add their own sections (TNE: pairwise coreference and link agreement; AltEntities: what was
collected).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import open_text
from refbench.metrics.agreement import categorical_agreement, majority
from refbench.studies.export import answers_by_annotator, rows
from refbench.studies.kinds import get_kind, kind_class, study_kinds
from refbench.studyfile.db import StudyStore

CANT_SAY = "can't say"

def progress(store: StudyStore) -> list[dict[str, Any]]:
    """Per annotator: items assigned and complete, answer units done, last save."""
    meta = store.meta()
    kind = get_kind(meta["kind"], meta)
    items = {it.id: it for it in store.items()}
    out = []
    for a in store.annotators():
        given = store.answers_of(a.id)
        assigned = [items[i] for _, i, _ in store.assignments(a.id)]
        last = store.conn.execute("SELECT max(updated_at) FROM answers WHERE annotator_id = ?",
                                  (a.id,)).fetchone()[0]
        out.append({
            "annotator": a.name, "assigned": len(assigned),
            "complete": sum(kind.is_complete(it, given.get(it.id, {})) for it in assigned),
            "units_done": sum(kind.done_units(it, given.get(it.id, {})) for it in assigned),
            "units": sum(len(kind.units(it, given.get(it.id, {}))) for it in assigned),
            "last_answer": last,
        })
    return out


def _accuracy(records: Sequence[dict[str, str]]) -> dict[str, Any]:
    by_annotator: dict[str, list[bool]] = defaultdict(list)
    for r in records:
        by_annotator[r["annotator"]].append(r["label"] == r["gold"])
    per = {a: sum(v) / len(v) for a, v in sorted(by_annotator.items())}
    gold = {r["item"]: r["gold"] for r in records}
    votes = majority([(r["item"], r["annotator"], r["label"]) for r in records])
    return {
        "n_answers": len(records),
        "accuracy": sum(r["label"] == r["gold"] for r in records) / len(records),
        "mean_accuracy_over_annotators": sum(per.values()) / len(per),
        "per_annotator": per,
        "majority_accuracy": sum(votes[i] == g for i, g in gold.items()) / len(gold),
        "cant_say_rate": sum(r["label"] == CANT_SAY for r in records) / len(records),
    }


def choice_agreement(records: Sequence[dict[str, str]],
                     variants: dict[str, str] | None = None) -> dict[str, Any]:
    """Agreement and accuracy from label records (item, annotator, label[, condition, gold,
    gold_check])."""
    checks = [r for r in records if r.get("gold_check") == "1"]
    main = [r for r in records if r.get("gold_check") != "1"]
    if not main:
        raise RefbenchError("no answers to compare yet")

    def ratings(rs: Sequence[dict[str, str]]) -> list[tuple[str, str, str]]:
        return [(r["item"], r["annotator"], r["label"]) for r in rs]

    out: dict[str, Any] = {"overall": categorical_agreement(ratings(main), missing={CANT_SAY})}
    by_condition: dict[str, list[dict[str, str]]] = defaultdict(list)
    for r in main:
        by_condition[r.get("condition") or ""].append(r)
    conditions: dict[str, Any] = {}
    for cond, rs in sorted(by_condition.items()):
        conditions[cond or "all"] = categorical_agreement(ratings(rs), missing={CANT_SAY})
        graded = [r for r in rs if r.get("gold")]
        if graded:
            conditions[cond or "all"].update(_accuracy(graded))
            if variants:
                by_variant: dict[str, list[dict[str, str]]] = defaultdict(list)
                for r in graded:
                    by_variant[variants.get(r["item"], "?")].append(r)
                conditions[cond or "all"]["accuracy_by_variant"] = {
                    v: sum(r["label"] == r["gold"] for r in g) / len(g)
                    for v, g in sorted(by_variant.items())}
    out["by_condition"] = conditions
    votes = majority(ratings(main))
    gold = {r["item"]: (r.get("gold", ""), r.get("condition", "")) for r in main}
    out["items"] = [{"item": i, "condition": gold[i][1], "majority": votes[i],
                     "gold": gold[i][0] or None} for i in sorted(votes)]
    if checks:
        per: dict[str, list[bool]] = defaultdict(list)
        for r in checks:
            per[r["annotator"]].append(r["label"] == r["gold"])
        out["gold_checks"] = {a: {"correct": sum(v), "total": len(v)}
                              for a, v in sorted(per.items())}
    return out


def study_agreement(path: Path) -> dict[str, Any]:
    """Progress and agreement of a study file: the choice figures for a study of labels, and
    whatever sections its study type reports (:meth:`StudyHooks.report`)."""
    with StudyStore(path) as store:
        meta = store.meta()
        kind = get_kind(meta["kind"], meta)
        out: dict[str, Any] = {"study": str(path), "kind": meta["kind"],
                               "progress": progress(store)}
        if kind.choice_agreement:
            groups = {it.id: group for it in store.items()
                      if (group := kind.group_of(it)) is not None}
            records = rows(store)
            out.update(choice_agreement(records, groups or None) if records else {})
        out.update(kind.report(store, answers_by_annotator(store)))
    return out


def csv_agreement(path: Path) -> dict[str, Any]:
    """Agreement from an answers CSV with at least ``item,annotator,label`` columns."""
    with open_text(path) as fh:
        reader = csv.DictReader(fh)
        missing = {"item", "annotator", "label"} - set(reader.fieldnames or [])
        if missing:
            raise RefbenchError(f"the CSV needs columns item, annotator, label (missing "
                                f"{', '.join(sorted(missing))})", path=path, line=1)
        records = [dict(r) for r in reader]
    for name in study_kinds():
        why = kind_class(name).csv_refusal(records)
        if why:
            raise RefbenchError(why, path=path)
    seen: dict[tuple[str, str], int] = {}
    for number, r in enumerate(records, start=2):
        key = (r["item"], r["annotator"])
        if key in seen:
            raise RefbenchError(f"a second label for item {r['item']!r} by {r['annotator']!r} "
                                f"(first on line {seen[key]})", path=path, line=number)
        seen[key] = number
    return {"answers": str(path), **choice_agreement(records)}


def _num(x: Any) -> str:
    return "-" if x is None else f"{x:.3f}" if isinstance(x, float) else str(x)


def format_report(report: dict[str, Any]) -> list[str]:
    """The agreement report as plain-text lines (``--json`` gives every figure)."""
    lines = []
    for p in report.get("progress", []):
        lines.append(f"{p['annotator']:12s} {p['complete']}/{p['assigned']} items done, "
                     f"{p['units_done']}/{p['units']} answers, last {p['last_answer'] or '-'}")
    if "overall" in report:
        head = (f"{'':18s} {'answers':>7s} {'items':>5s} {'kappa':>6s} {'alpha':>6s} "
                f"{'alpha*':>6s} {'agree':>6s} {'acc':>6s} {'acc/ann':>7s} {'maj':>6s} "
                f"{'cant':>6s}")
        lines += ["", head]
        rows_ = [("all", report["overall"]), *report["by_condition"].items()]
        for name, c in rows_:
            lines.append(
                f"{name:18s} {c['n_ratings']:7d} {c['n_items']:5d} {_num(c['fleiss_kappa']):>6s} "
                f"{_num(c['krippendorff_alpha']):>6s} "
                f"{_num(c.get('krippendorff_alpha_missing')):>6s} "
                f"{_num(c['percent_agreement']):>6s} {_num(c.get('accuracy')):>6s} "
                f"{_num(c.get('mean_accuracy_over_annotators')):>7s} "
                f"{_num(c.get('majority_accuracy')):>6s} {_num(c.get('cant_say_rate')):>6s}")
        lines.append("kappa: Fleiss, items answered by every annotator; alpha: Krippendorff "
                     "(nominal); alpha*: can't say as missing; maj: majority vs gold")
        for cond, c in report["by_condition"].items():
            if c.get("accuracy_by_variant"):
                lines.append(f"accuracy by variant, {cond}: " + ", ".join(
                    f"{v} {a:.3f}" for v, a in c["accuracy_by_variant"].items()))
        if report.get("gold_checks"):
            lines.append("gold checks: " + ", ".join(f"{a} {g['correct']}/{g['total']}"
                                                     for a, g in report["gold_checks"].items()))
    if report.get("kind"):
        meta = {"kind": report["kind"]}
        lines += get_kind(report["kind"], meta).report_lines(report)
    return lines
