"""The admin's review table of what annotators wrote (AltEntities expressions): one row per
answer with its flags, filtered by annotator, item, flag and text, and exported as the same
CSV as ``refbench study export`` restricted to the rows shown.

The rows are :func:`refbench.studies.export.rows` (the export's own rows, flags included), so
the table, the filtered CSV and the full export never disagree. Filters come from the query
string, so they work without JavaScript and a filtered view is a link one can share with
whoever else holds the admin token.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from refbench.studies.export import rows
from refbench.studyfile.db import StudyStore

FLAG_CHOICES = {"": "all", "flagged": "flagged only", "clean": "not flagged"}
MAX_SHOWN = 500  # the page stays light; the CSV always has every matching row


def filters(args: Mapping[str, str]) -> dict[str, str]:
    """The known filters from the query string, unknown values dropped."""
    flag = args.get("flag", "")
    return {"annotator": args.get("annotator", "").strip(), "item": args.get("item", "").strip(),
            "flag": flag if flag in FLAG_CHOICES else "", "q": args.get("q", "").strip()[:200]}


def matches(row: Mapping[str, str], f: Mapping[str, str]) -> bool:
    if f["annotator"] and row["annotator"] != f["annotator"]:
        return False
    if f["item"] and row["item"] != f["item"]:
        return False
    if f["flag"] and (f["flag"] == "flagged") != bool(row["flags"]):
        return False
    return not f["q"] or f["q"].lower() in row["label"].lower()


def filtered(records: Sequence[dict[str, str]], args: Mapping[str, str]) -> list[dict[str, str]]:
    f = filters(args)
    return [r for r in records if matches(r, f)]


def review_table(store: StudyStore, args: Mapping[str, str]) -> dict[str, Any]:
    """Rows shown on the admin page (each with the item's two names), the filters and counts."""
    records = rows(store)
    f = filters(args)
    shown = [r for r in records if matches(r, f)]
    items = {it.id: it for it in store.items()}
    out = []
    for r in shown[:MAX_SHOWN]:
        p = items[r["item"]].payload
        names = p.get("shown") or ["", ""]
        target = int(p.get("target_index", 0))
        out.append({**r, "domain": str(p.get("domain", "")), "target": names[target],
                    "other": names[1 - target] if len(names) == 2 else "",
                    "words": len(r["label"].split()),
                    "flag_list": [x for x in r["flags"].split("; ") if x]})
    return {"rows": out, "filters": f, "total": len(records), "matching": len(shown),
            "flagged": sum(1 for r in records if r["flags"]), "truncated": len(shown) > MAX_SHOWN,
            "annotators": sorted({r["annotator"] for r in records}),
            "flag_choices": FLAG_CHOICES,
            "query": {k: v for k, v in f.items() if v}}
