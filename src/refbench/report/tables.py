"""Paper-style tables from results: KITMUS as in the paper (variant rows in the paper's order, one
group of 2/3/4-entity columns per system, a chance row), every other task one row per system
and data set (naming the model, the data and the split).

Inputs are result dicts as :mod:`refbench.report.results` loads them. Figures are fractions in
[0, 1]; intervals are the 95% bootstrap intervals the scorers computed; ``±`` is the sample
standard deviation over runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.report.render import FORMATS, Table, render_tables

__all__ = ["FORMATS", "Cell", "generic_table", "generic_tables", "kitmus_cells", "kitmus_table",
           "render"]

CHANCE = "chance (random baseline)"
KITMUS_METRICS = ("pronoun_accuracy", "antecedent_f1", "antecedent_precision",
                  "antecedent_recall", "task_specific_accuracy")
HEADLINE = {
    "gap": ("accuracy", "f1", "precision", "recall", "f1_masculine", "f1_feminine", "bias"),
    "knowref": ("accuracy", "task_specific_accuracy", "consistency"),
    "winograd": ("accuracy", "accuracy_norm"),
    "altentities": ("accuracy",),
    "tne": ("labeled_f1", "labeled_precision", "labeled_recall", "unlabeled_f1",
            "iprep_accuracy", "uprep_accuracy"),
}


@dataclass(frozen=True)
class Cell:
    system: str
    variant: str
    n_entities: int
    value: float
    std: float | None
    n_runs: int
    n: int | None = None
    ci: tuple[float, float] | None = None


def metric_label(metric: str) -> str:
    return metric.replace("_", " ").capitalize().replace("f1", "F1").replace("Iprep", "IPrep") \
        .replace("Uprep", "UPrep")


def _ci(ci95: Any, metric: str) -> tuple[float, float] | None:
    if isinstance(ci95, dict) and isinstance(ci95.get(metric), list | tuple):
        lo, hi = ci95[metric]
        if lo == lo and hi == hi:  # not NaN
            return float(lo), float(hi)
    return None


def _metric_value(r: dict[str, Any], metric: str, where: str | None) -> float:
    if metric not in r:
        raise UsageError(f"{where or 'a KITMUS result'} has no metric {metric!r}; KITMUS tables "
                         f"show one of {', '.join(KITMUS_METRICS)}")
    value = r[metric]
    if value is None:
        raise RefbenchError(f"metric {metric!r} is empty (no decisions?)", path=where)
    return float(value)


def kitmus_cells(results: Sequence[dict[str, Any]], metric: str
                 ) -> tuple[list[Cell], dict[str, float]]:
    """Table cells from KITMUS results (suite results, single evaluations, runs) and the chance
    level per ``variant|entities``."""
    cells: list[Cell] = []
    chance: dict[str, float] = {}
    for r in results:
        if r.get("task") != "kitmus":
            continue
        where = r.get("_path")
        if r.get("mode") == "suite":
            for c in r["cells"]:
                cells.append(Cell(c["system"], c["variant"], int(c["n_entities"]),
                                  _metric_value(c, metric, where), c.get(f"{metric}_std"),
                                  int(c.get("n_runs", 1)), c.get("n"), _ci(c.get("ci95"), metric)))
            chance.update(r.get("random_baseline", {}))
            continue
        if r.get("variant") is None or r.get("n_entities") is None:
            raise RefbenchError("a KITMUS result without a single variant and entity count "
                                "cannot be placed in the table", path=where)
        system = r.get("system") or r.get("model") or Path(str(where or "system")).stem
        cells.append(Cell(str(system), r["variant"], int(r["n_entities"]),
                          _metric_value(r, metric, where), r.get(f"{metric}_std"),
                          int(r.get("n_runs", 1)), r.get("n"), _ci(r.get("ci95"), metric)))
        chance[f"{r['variant']}|{r['n_entities']}"] = r["random_baseline"]["pronoun_accuracy"]
    return cells, chance


def _fmt_cell(c: Cell, *, ci: bool, show_n: bool) -> str:
    text = f"{c.value:.3f}"
    if c.n_runs > 1 and c.std is not None:
        text += f" ± {c.std:.3f}"
    if ci and c.ci is not None:
        text += f" [{c.ci[0]:.3f}, {c.ci[1]:.3f}]"
    if show_n and c.n is not None:
        text += f" (n={c.n})"
    return text


def kitmus_table(cells: list[Cell], chance: dict[str, float], *, metric: str = "pronoun_accuracy",
                 split: str | None = None, ci: bool = False) -> Table:
    """Variant rows (paper order) x one 2/3/4-entity column group per system, and a chance row
    labelled as the random baseline (never a system's row, whatever the systems are called)."""
    from refbench.tasks.kitmus.suite_eval import variant_order

    variants = sorted({c.variant for c in cells}, key=lambda v: (variant_order(v), v))
    systems = list(dict.fromkeys(c.system for c in cells))
    ns = sorted({c.n_entities for c in cells})
    by = {(c.system, c.variant, c.n_entities): c for c in cells}
    sizes = {c.n for c in cells if c.n is not None}
    show_n = ci and len(sizes) > 1
    rows = []
    for v in variants:
        row = [v]
        for s in systems:
            for n in ns:
                c = by.get((s, v, n))
                row.append("-" if c is None else _fmt_cell(c, ci=ci, show_n=show_n))
        rows.append(row)
    chance_by_n = {}
    for n in ns:
        values = {round(val, 6) for key, val in chance.items() if key.endswith(f"|{n}")}
        chance_by_n[n] = f"{values.pop():.3f}" if len(values) == 1 else "-"
    rows.append([CHANCE, *(chance_by_n[n] for _ in systems for n in ns)])
    label = metric_label(metric)
    title = f"{label}{f', {split} split' if split else ''}"
    notes = [f"Cells: {label.lower()} as a fraction of instances; columns: number of entities."]
    if any(c.n_runs > 1 for c in cells):
        runs = sorted({c.n_runs for c in cells if c.n_runs > 1})
        notes.append(f"± : sample standard deviation over {'/'.join(map(str, runs))} runs.")
    if ci:
        notes.append("[low, high]: 95% bootstrap interval over instances"
                     + (" (of the mean over runs)" if any(c.n_runs > 1 for c in cells) else "")
                     + ".")
        if len(sizes) == 1:
            notes.append(f"n = {sizes.pop()} instances per cell.")
    notes.append(f"{CHANCE}: uniform choice among the candidates.")
    tidy = [{"task": "kitmus", "system": c.system, "kind": "system", "split": split,
             "variant": c.variant, "n_entities": c.n_entities, "metric": metric,
             "value": c.value, "std": c.std if c.n_runs > 1 else None, "n_runs": c.n_runs,
             "n": c.n, "ci_low": c.ci[0] if c.ci else None,
             "ci_high": c.ci[1] if c.ci else None} for c in cells]
    tidy += [{"task": "kitmus", "system": CHANCE, "kind": "baseline", "split": split,
              "variant": key.split("|")[0], "n_entities": int(key.split("|")[1]),
              "metric": metric, "value": val}
             for key, val in sorted(chance.items()) if key.split("|")[0] in variants]
    header = ["Variant", *(f"{n} ent." for _ in systems for n in ns)]
    return Table(title=title, header=header, rows=rows,
                 groups=[("", 1), *((s, len(ns)) for s in systems)],
                 rule_before={len(rows) - 1}, notes=notes, tidy=tidy,
                 label=f"tab:kitmus-{metric.replace('_', '-')}")


def data_label(path: str | None) -> str:
    """A data file named by its last folders (``altentities/books/test.json.gz``)."""
    if not path:
        return "-"
    parts = Path(path).parts
    return "/".join(parts[-3:]) if len(parts) > 3 else str(path)


TASK_TITLES = {"gap": "GAP", "knowref": "KnowRef", "winograd": "Winograd-style",
               "altentities": "AltEntities", "tne": "TNE", "kitmus": "KITMUS"}


def generic_tables(results: Sequence[dict[str, Any]], *, metric: str | None = None,
                   ci: bool = False) -> list[Table]:
    """One table per task, one row per result: system, data, split, n and the task's
    headline figures (or only ``metric``)."""
    tasks = list(dict.fromkeys(str(r.get("task")) for r in results))
    tables = [generic_table([r for r in results if str(r.get("task")) == t], metric=metric,
                            ci=ci, strict=False) for t in tasks]
    tables = [t for t in tables if t.header[t.header.index("n") + 1:]]
    if metric and not tables:
        raise UsageError(f"no result has the metric {metric!r}")
    return tables


def generic_table(results: Sequence[dict[str, Any]], *, metric: str | None = None,
                  ci: bool = False, strict: bool = True) -> Table:
    """One row per result (of one task): system, data, split, n and headline figures."""
    keys: list[str] = []
    for r in results:
        wanted = [metric] if metric else list(HEADLINE.get(str(r.get("task")), ("accuracy",)))
        keys += [k for k in wanted if k not in keys and r.get(k) is not None]
    if metric and not keys and strict:
        raise UsageError(f"no result has the metric {metric!r}")
    tasks = list(dict.fromkeys(str(r.get("task")) for r in results))
    rows, tidy = [], []
    # the model spec gets a column of its own where a system was given another name
    show_model = any(r.get("model") and r.get("system") and r["model"] != r["system"]
                     for r in results)
    for r in results:
        system = str(r.get("system") or r.get("model") or Path(str(r.get("_path", "?"))).stem)
        data = r.get("data") or r.get("gold")
        n = r.get("n", r.get("n_documents"))
        row = [system, *([str(r.get("model") or "-")] if show_model else []), data_label(data),
               str(r.get("split") or "-"), str(n or "-")]
        for k in keys:
            v = r.get(k)
            interval = _ci(r.get("ci95"), k)
            text = "-" if not isinstance(v, int | float) else f"{v:.3f}"
            if ci and interval and isinstance(v, int | float):
                text += f" [{interval[0]:.3f}, {interval[1]:.3f}]"
            row.append(text)
            if isinstance(v, int | float):
                tidy.append({"task": r.get("task"), "system": system, "model": r.get("model"),
                             "kind": "system",
                             "data": data, "split": r.get("split"), "metric": k,
                             "value": float(v), "n": n,
                             "ci_low": interval[0] if interval else None,
                             "ci_high": interval[1] if interval else None})
        rows.append(row)
    notes = ["Figures are fractions" + (" (bias: F1 feminine / F1 masculine)."
                                        if "bias" in keys else ".")]
    if "tne" in tasks:
        notes.append("TNE n: documents.")
    if ci and any("[" in cell for row in rows for cell in row):
        notes.append("[low, high]: 95% bootstrap interval over instances.")
    name = " / ".join(TASK_TITLES.get(t, t) for t in tasks)
    return Table(title=f"{name} results", header=["System", *(["Model"] if show_model else []),
                                                  "Data", "Split", "n",
                                                  *(metric_label(k) for k in keys)],
                 rows=rows, notes=notes, tidy=tidy,
                 label=f"tab:{'-'.join(tasks)}-results")


def render(header: list[str], rows: list[list[str]], fmt: str, *, title: str = "") -> str:
    """A plain table (one header row) in any format."""
    return render_tables([Table(title=title, header=header, rows=rows)], fmt)
