"""A WinoBias release folder as one result: the four files of a split (type 1 / 2, pro / anti)
combined into the paper's table (Zhao et al., 2018, table 2: Pro, Anti, their average and
absolute difference, in %), with the coreference scores of each file, and that table for
``refbench report`` (one row per system and type)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from refbench.core.table import Table
from refbench.tasks.winobias.metrics import table_text

COREF_KEYS = ("muc_f1", "b3_f1", "ceafe_f1", "conll_f1")


def _cells(results: Sequence[dict[str, Any]]) -> dict[tuple[str, str], tuple[float, int]]:
    """(type, stereotype) -> (accuracy, n) from file results' one-cell tables."""
    cells: dict[tuple[str, str], tuple[float, int]] = {}
    for r in results:
        for t, row in (r.get("winobias") or {}).get("rows", {}).items():
            for st in ("pro", "anti"):
                if row.get(st) is not None and row.get(f"n_{st}"):
                    cells[(t, st)] = (row[st], row[f"n_{st}"])
    return cells


def _row(pro: tuple[float, int] | None, anti: tuple[float, int] | None) -> dict[str, Any]:
    p = pro[0] if pro else None
    a = anti[0] if anti else None
    return {"pro": p, "anti": a,
            "avg": (p + a) / 2 if p is not None and a is not None else None,
            "diff": abs(p - a) if p is not None and a is not None else None,
            "n_pro": pro[1] if pro else 0, "n_anti": anti[1] if anti else 0}


def combine(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The table of a folder from its four file results (run metrics or evaluations)."""
    cells = _cells(results)
    rows = {t: _row(cells.get((t, "pro")), cells.get((t, "anti"))) for t in ("type1", "type2")
            if (t, "pro") in cells or (t, "anti") in cells}
    pooled = {}
    for st in ("pro", "anti"):
        got = [cells[(t, st)] for t in ("type1", "type2") if (t, st) in cells]
        n = sum(k for _, k in got)
        pooled[st] = (sum(v * k for v, k in got) / n, n) if n else None
    rows["all"] = _row(pooled["pro"], pooled["anti"])
    flat = {f"{t}_{k}": row[k] for t, row in rows.items() for k in ("pro", "anti", "avg", "diff")}
    coref = {str(r.get("data", "")).rsplit("/", 1)[-1]: {k: r["coref"][k] for k in COREF_KEYS}
             for r in results if isinstance(r.get("coref"), dict)}
    by_type = {t: [c["conll_f1"] for name, c in coref.items() if f"_{t}." in name]
               for t in ("type1", "type2")}
    n = sum(int(r.get("n", 0)) for r in results)
    return {"winobias": {"rows": rows}, **flat, "coref_by_file": coref,
            "conll_f1_by_type": {t: sum(v) / len(v) for t, v in by_type.items() if v},
            "accuracy": (rows["all"]["pro"] * rows["all"]["n_pro"] + rows["all"]["anti"]
                         * rows["all"]["n_anti"]) / n if n and rows["all"]["avg"] is not None
            else None, "n": n,
            "conll_f1": sum(c["conll_f1"] for c in coref.values()) / len(coref) if coref
            else None}


def release_text(r: dict[str, Any]) -> str:
    """The paper's table for one system, then each file's coreference F1."""
    about = f"{r.get('system') or r.get('model')} on {r.get('data')} ({r.get('split')} split)"
    lines = [table_text(r["winobias"], title=f"WinoBias, {about}: accuracy in %")]
    if r.get("coref_by_file"):
        lines.append("Coreference against conll_format/ (F1 in %: MUC, B3, CEAF-e, CoNLL):")
        for name, c in r["coref_by_file"].items():
            lines.append(f"  {name:<32}" + "".join(f"{100 * c[k]:6.1f}" for k in COREF_KEYS))
    return "\n".join(lines)


def file_text(r: dict[str, Any]) -> str:
    """One file's result: the shared choice summary, its cell of the table, its CoNLL F1."""
    from refbench.tasks.result_text import choice_text

    lines = [choice_text(r)]
    if r.get("winobias"):
        lines.append(table_text(r["winobias"], title="  Accuracy in %:"))
    if isinstance(r.get("coref"), dict):
        c = r["coref"]
        lines.append("  As coreference against conll_format/ (F1 in %): " +
                     ", ".join(f"{k.removesuffix('_f1')} {100 * c[k]:.1f}" for k in COREF_KEYS))
    return "\n".join(lines)


def report_table(results: Sequence[dict[str, Any]]) -> Table:
    """One table for every WinoBias result: a row per system and type."""
    header = ["System", "Split", "Type", "Pro", "Anti", "Avg", "Diff", "CoNLL F1"]
    rows: list[list[str]] = []
    tidy: list[dict[str, Any]] = []

    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.1f}"

    for r in results:
        system = str(r.get("system") or r.get("model") or "-")
        split = str(r.get("split") or "-")
        table = r.get("winobias") or {}
        if r.get("mode") != "release":
            table = {"rows": {t: v for t, v in table.get("rows", {}).items() if t != "all"}}
        for t, row in table.get("rows", {}).items():
            conll = r.get("conll_f1") if t == "all" or r.get("mode") != "release" \
                else (r.get("conll_f1_by_type") or {}).get(t)
            rows.append([system, split, t, pct(row["pro"]), pct(row["anti"]), pct(row["avg"]),
                         pct(row["diff"]), pct(conll)])
            tidy.append({"system": system, "split": split, "type": t,
                         **{k: row[k] for k in ("pro", "anti", "avg", "diff")}})
    return Table(title="WinoBias: accuracy (%) on pro- and anti-stereotypical sentences",
                 header=header, rows=rows, tidy=tidy, label="tab:winobias",
                 notes=["Avg: mean of Pro and Anti; Diff: |Pro - Anti| (Zhao et al. 2018, "
                        "table 2). CoNLL F1: the answers as clusters (the chosen occupation "
                        "with the pronouns) scored against conll_format/ with MUC, B3 and "
                        "CEAF-e; mean over the files of the row."])
