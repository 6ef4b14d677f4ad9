"""Paper-style tables (systems x variant x entities) from result files, in md/latex/html/csv.

Any KITMUS result file works: a single evaluation, several runs (mean ± std), or a whole-suite
evaluation. Other tasks' results become one row per file with their headline metrics. Every
cell of an HTML table is escaped.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import load_json_object
from refbench.core.records import Record, Where

FORMATS = ("md", "latex", "html", "csv")


@dataclass(frozen=True)
class Cell:
    system: str
    variant: str
    n_entities: int
    value: float
    std: float | None
    n_runs: int


def load_results(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    out = []
    for p in paths:
        try:
            data = load_json_object(p, "result object")
        except RefbenchError as exc:
            if exc.message == "file not found":
                raise RefbenchError("result file not found", path=p) from None
            raise
        if "task" not in data:
            raise RefbenchError("not a refbench result (no 'task' field)", path=p)
        check_result_shape(data, p)
        data.setdefault("_path", str(p))
        out.append(data)
    return out


def check_result_shape(data: dict[str, Any], path: str | Path) -> None:
    """The fields a table reads, checked once: a KITMUS suite result's cells, and every cell's
    system, variant, entity count and figures (numbers or null)."""
    rec = Record(data, Where(path))
    rec.string("task")
    if data.get("task") != "kitmus":
        return
    suite = data.get("mode") == "suite"
    cells = rec.records("cells") if suite else [rec]
    for c in cells:
        if suite:
            c.string("system")
        else:
            c.string("system", None)
        c.string("variant", None)
        c.integer("n_entities", None, min=1)
        c.integer("n_runs", None, min=1)
        c.raw("pronoun_accuracy")
        for key, value in c.obj.items():
            if (key in _FIGURES or key.endswith("_std")) and value is not None:
                c.number(key)
    if suite:
        baseline = rec.record("random_baseline", None)
        for key in baseline.obj if baseline else ():
            baseline.number(key)
    elif rec.has("variant"):
        rec.record("random_baseline").number("pronoun_accuracy")


_FIGURES = ("pronoun_accuracy", "antecedent_f1", "antecedent_precision", "antecedent_recall",
            "task_specific_accuracy")


def kitmus_cells(
    results: Sequence[dict[str, Any]], metric: str
) -> tuple[list[Cell], dict[str, float]]:
    cells: list[Cell] = []
    random: dict[str, float] = {}
    for r in results:
        if r.get("task") != "kitmus":
            continue
        if r.get("mode") == "suite":
            for c in r["cells"]:
                cells.append(Cell(c["system"], c["variant"], int(c["n_entities"]), c[metric],
                                  c.get(f"{metric}_std"), int(c.get("n_runs", 1))))
            random.update(r.get("random_baseline", {}))
            continue
        if r.get("variant") is None or r.get("n_entities") is None:
            raise RefbenchError("a KITMUS result without a single variant and entity count "
                                "cannot be placed in the table", path=r.get("_path"))
        cells.append(Cell(r.get("system") or "system", r["variant"], int(r["n_entities"]),
                          r[metric], r.get(f"{metric}_std"), int(r.get("n_runs", 1))))
        random[f"{r['variant']}|{r['n_entities']}"] = r["random_baseline"]["pronoun_accuracy"]
    return cells, random


def kitmus_grid(cells: list[Cell], random: dict[str, float], *, random_row: bool = True
                ) -> tuple[list[str], list[list[str]]]:
    columns = sorted({(c.variant, c.n_entities) for c in cells})
    systems = list(dict.fromkeys(c.system for c in cells))
    by = {(c.system, c.variant, c.n_entities): c for c in cells}
    header = ["system", *(f"{v} {n} ent" for v, n in columns)]
    rows = []
    for s in systems:
        row = [s]
        for v, n in columns:
            c = by.get((s, v, n))
            if c is None or c.value is None:
                row.append("-")
            elif c.n_runs > 1 and c.std is not None:
                row.append(f"{c.value:.3f} ± {c.std:.3f}")
            else:
                row.append(f"{c.value:.3f}")
        rows.append(row)
    if random_row:
        rows.append(["random", *(f"{random[f'{v}|{n}']:.3f}" if f"{v}|{n}" in random else "-"
                                 for v, n in columns)])
    return header, rows


def generic_grid(results: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    keys = ["task", "n"]
    for r in results:
        for k, v in r.items():
            if isinstance(v, float) and k not in keys and not k.endswith("_std"):
                keys.append(k)
    rows = [[Path(r.get("_path", "?")).name, *(_fmt(r.get(k)) for k in keys)] for r in results]
    return ["result", *keys], rows


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3f}"
    return "-" if v is None else str(v)


def render(header: list[str], rows: list[list[str]], fmt: str, *, title: str = "") -> str:
    if fmt == "md":
        out = [f"**{title}**", ""] if title else []
        out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(out) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        return buf.getvalue()
    if fmt == "latex":
        def tex(s: str) -> str:
            for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"),
                         ("#", r"\#"), ("±", r"$\pm$")):
                s = s.replace(a, b)
            return s
        lines = [r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}", r"\toprule",
                 " & ".join(tex(h) for h in header) + r" \\", r"\midrule"]
        lines += [" & ".join(tex(c) for c in r) + r" \\" for r in rows]
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines) + "\n"
    if fmt == "html":
        esc = html.escape
        parts = ["<table>"]
        if title:
            parts.append(f"<caption>{esc(title)}</caption>")
        parts.append("<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header)
                     + "</tr></thead><tbody>")
        parts += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows]
        parts.append("</tbody></table>")
        return "\n".join(parts) + "\n"
    raise RefbenchError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
