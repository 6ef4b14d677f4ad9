"""KITMUS results as the paper's tables: variant rows in the paper's order, one group of
2/3/4-entity columns per system, a chance row (the KITMUS task's ``report_tables`` layout).

Inputs are result dicts as :mod:`refbench.reporting.results` loads them. Figures are fractions in
[0, 1]; intervals are the 95% bootstrap intervals the scorers computed; ``±`` is the sample
standard deviation over runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.records import Record, Where
from refbench.core.table import Table, interval_of, metric_label

CHANCE = "chance (random baseline)"
KITMUS = "kitmus"
KITMUS_METRICS = ("pronoun_accuracy", "antecedent_f1", "antecedent_precision",
                  "antecedent_recall", "task_specific_accuracy")


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
        if r.get("task") != KITMUS:
            continue
        where = r.get("_path")
        if r.get("mode") == "suite":
            for c in r["cells"]:
                cells.append(Cell(c["system"], c["variant"], int(c["n_entities"]),
                                  _metric_value(c, metric, where), c.get(f"{metric}_std"),
                                  int(c.get("n_runs", 1)), c.get("n"),
                                  interval_of(c.get("ci95"), metric)))
            chance.update(r.get("random_baseline", {}))
            continue
        if r.get("variant") is None or r.get("n_entities") is None:
            raise RefbenchError("a KITMUS result without a single variant and entity count "
                                "cannot be placed in the table", path=where)
        system = r.get("system") or r.get("model") or Path(str(where or "system")).stem
        cells.append(Cell(str(system), r["variant"], int(r["n_entities"]),
                          _metric_value(r, metric, where), r.get(f"{metric}_std"),
                          int(r.get("n_runs", 1)), r.get("n"),
                          interval_of(r.get("ci95"), metric)))
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
    from refbench.tasks.kitmus.registries import variant_order

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
    tidy = [{"task": KITMUS, "system": c.system, "kind": "system", "split": split,
             "variant": c.variant, "n_entities": c.n_entities, "metric": metric,
             "value": c.value, "std": c.std if c.n_runs > 1 else None, "n_runs": c.n_runs,
             "n": c.n, "ci_low": c.ci[0] if c.ci else None,
             "ci_high": c.ci[1] if c.ci else None} for c in cells]
    tidy += [{"task": KITMUS, "system": CHANCE, "kind": "baseline", "split": split,
              "variant": key.split("|")[0], "n_entities": int(key.split("|")[1]),
              "metric": metric, "value": val}
             for key, val in sorted(chance.items()) if key.split("|")[0] in variants]
    header = ["Variant", *(f"{n} ent." for _ in systems for n in ns)]
    return Table(title=title, header=header, rows=rows,
                 groups=[("", 1), *((s, len(ns)) for s in systems)],
                 rule_before={len(rows) - 1}, notes=notes, tidy=tidy,
                 label=f"tab:kitmus-{metric.replace('_', '-')}")


def result_split(results: Sequence[dict[str, Any]]) -> str | None:
    splits = {r.get("split") for r in results if r.get("task") == KITMUS}
    return splits.pop() if len(splits) == 1 else None


def report_tables(kitmus: Sequence[dict[str, Any]], *, metric: str | None = None,
                  ci: bool = False) -> list[Table]:
    """The paper's table of KITMUS results for ``metric`` (pronoun accuracy by default); with
    no metric named, the tidy records carry every metric the results have."""
    km_metric = metric or "pronoun_accuracy"
    cells, chance = kitmus_cells(kitmus, km_metric)
    table = kitmus_table(cells, chance, metric=km_metric, split=result_split(kitmus), ci=ci)
    if metric is None:  # the tidy records carry every metric the results have
        extra = []
        for other in KITMUS_METRICS[1:]:
            try:
                more, _ = kitmus_cells(kitmus, other)
            except RefbenchError:  # not in every result (e.g. no decisions)
                continue
            extra += [t for t in kitmus_table(more, chance, metric=other,
                                              split=result_split(kitmus)).tidy
                      if t["kind"] == "system"]
        first = [t for t in table.tidy if t["kind"] == "system"]
        table.tidy = first + extra + [t for t in table.tidy if t["kind"] != "system"]
    return [table]


_FIGURES = ("pronoun_accuracy", "antecedent_f1", "antecedent_precision", "antecedent_recall",
            "task_specific_accuracy")


def _migrate_partial_run(data: dict[str, Any]) -> None:
    """A ``--limit`` run written before refbench scored partial runs with the KITMUS scorer has
    only the choice metrics: for one answer per instance, pronoun accuracy is its accuracy, and
    its variant and entity count are its only slices."""
    data["pronoun_accuracy"] = data.get("accuracy")
    if (data.get("ci95") or {}).get("accuracy") is not None:
        data["ci95"] = {**data["ci95"], "pronoun_accuracy": data["ci95"]["accuracy"]}
    for key in ("variant", "n_entities"):
        values = list((data.get("slices") or {}).get(key) or {})
        if key not in data and len(values) == 1:
            data[key] = int(values[0]) if key == "n_entities" and values[0].isdigit() \
                else values[0]
    n = data.get("n_entities")
    if "random_baseline" not in data and isinstance(n, int) and n > 0:
        data["random_baseline"] = {"pronoun_accuracy": 1 / n, "antecedent_f1": 1 / n}


def check_result(data: dict[str, Any], path: str | Path) -> None:
    """The fields a table reads, checked once: a KITMUS suite result's cells, and every cell's
    system, variant, entity count and figures (numbers or null)."""
    suite = data.get("mode") == "suite"
    if not suite and "pronoun_accuracy" not in data and "model" in data:
        _migrate_partial_run(data)
    rec = Record(data, Where(path))
    cells = rec.records("cells") if suite else [rec]
    for c in cells:
        if suite:
            c.string("system")
        else:
            c.string("system", None)
        c.string("variant", None)
        c.integer("n_entities", None, min=1)
        c.integer("n_runs", None, min=1)
        c.integer("n", None, min=0)
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
