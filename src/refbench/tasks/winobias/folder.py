"""A WinoBias release folder as one result: the four files of a split (type 1 / 2, pro / anti)
combined into the paper's table (Zhao et al., 2018, table 2: Pro, Anti, their average and
absolute difference, in %), with the coreference scores of each file, and that table for
``refbench report`` (one row per system and type)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.invalid import InvalidInstances
from refbench.core.table import Table
from refbench.tasks.capabilities import FolderFile, FolderRuns, HfExport, Report, TaskCore
from refbench.tasks.hf_parts import HfFolder, HfPart
from refbench.tasks.winobias.metrics import table_row, table_text

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



def combine(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The table of a folder from its four file results (run metrics or evaluations)."""
    cells = _cells(results)
    rows = {t: table_row(cells.get((t, "pro")), cells.get((t, "anti")))
            for t in ("type1", "type2") if (t, "pro") in cells or (t, "anti") in cells}
    pooled = {}
    for st in ("pro", "anti"):
        got = [cells[(t, st)] for t in ("type1", "type2") if (t, st) in cells]
        n = sum(k for _, k in got)
        pooled[st] = (sum(v * k for v, k in got) / n, n) if n else None
    rows["all"] = table_row(pooled["pro"], pooled["anti"])
    flat = {f"{t}_{k}": row[k] for t, row in rows.items() for k in ("pro", "anti", "avg", "diff")}
    intervals = {f"{t}_{k}": v for t, row in rows.items() for k, v in row["ci95"].items()}
    coref = {str(r.get("data", "")).rsplit("/", 1)[-1]: {k: r["coref"][k] for k in COREF_KEYS}
             for r in results if isinstance(r.get("coref"), dict)}
    by_type = {t: [c["conll_f1"] for name, c in coref.items() if f"_{t}." in name]
               for t in ("type1", "type2")}
    n = sum(int(r.get("n", 0)) for r in results)
    return {"winobias": {"rows": rows}, **flat, "ci95": intervals,
            "ci95_methods": {k: "newcombe" if k.endswith("pro_minus_anti") else "wilson"
                             for k in intervals},
            "coref_by_file": coref,
            "conll_f1_by_type": {t: sum(v) / len(v) for t, v in by_type.items() if v},
            "accuracy": (rows["all"]["pro"] * rows["all"]["n_pro"] + rows["all"]["anti"]
                         * rows["all"]["n_anti"]) / n if n and rows["all"]["avg"] is not None
            else None, "n": n,
            "conll_f1": sum(c["conll_f1"] for c in coref.values()) / len(coref) if coref
            else None}


def release_text(r: dict[str, Any], *, ci: bool = False) -> str:
    """The paper's table for one system (as fractions), then each file's coreference F1."""
    about = f"{r.get('system') or r.get('model')} on {r.get('data')} ({r.get('split')} split)"
    lines = [table_text(r["winobias"], title=f"WinoBias, {about}: accuracy (fractions)",
                        ci=ci)]
    if r.get("coref_by_file"):
        lines.append("Coreference against conll_format/ (F1, fractions: MUC, B3, CEAF-e, "
                     "CoNLL):")
        for name, c in r["coref_by_file"].items():
            lines.append(f"  {name:<32}" + "".join(f"{c[k]:7.3f}" for k in COREF_KEYS))
    return "\n".join(lines)


def file_text(r: dict[str, Any], *, ci: bool = False) -> str:
    """One file's result: the shared choice summary, its cell of the table, its CoNLL F1."""
    from refbench.tasks.result_text import choice_text

    lines = [choice_text(r)]
    if r.get("winobias"):
        lines.append(table_text(r["winobias"], title="  Accuracy (fractions):", ci=ci))
    if isinstance(r.get("coref"), dict):
        c = r["coref"]
        lines.append("  As coreference against conll_format/ (F1): " +
                     ", ".join(f"{k.removesuffix('_f1')} {c[k]:.3f}" for k in COREF_KEYS))
    return "\n".join(lines)


def report_table(results: Sequence[dict[str, Any]], *, ci: bool = False) -> Table:
    """One table for every WinoBias result: a row per system and type, as fractions; with
    ``ci``, the 95% intervals of Pro and Anti (Wilson) and of Pro - Anti (Newcombe)."""
    header = ["System", "Split", "Type", "Pro", "Anti", "Avg", "Diff", "CoNLL F1"]
    if ci:
        header.insert(7, "Pro - Anti")
    rows: list[list[str]] = []
    tidy: list[dict[str, Any]] = []

    def frac(v: float | None, interval: list[float] | None = None) -> str:
        text = "-" if v is None else f"{v:.3f}"
        return f"{text} [{interval[0]:.3f}, {interval[1]:.3f}]" if ci and interval else text

    for r in results:
        system = str(r.get("system") or r.get("model") or "-")
        split = str(r.get("split") or "-")
        table = r.get("winobias") or {}
        if r.get("mode") != "release":
            table = {"rows": {t: v for t, v in table.get("rows", {}).items() if t != "all"}}
        for t, row in table.get("rows", {}).items():
            conll = r.get("conll_f1") if t == "all" or r.get("mode") != "release" \
                else (r.get("conll_f1_by_type") or {}).get(t)
            spans = row.get("ci95") or {}
            cells = [system, split, t, frac(row["pro"], spans.get("pro")),
                     frac(row["anti"], spans.get("anti")), frac(row["avg"]), frac(row["diff"])]
            if ci:
                gap = (row["pro"] - row["anti"]) if row["pro"] is not None \
                    and row["anti"] is not None else None
                cells.append(frac(gap, spans.get("pro_minus_anti")))
            rows.append([*cells, frac(conll)])
            tidy.append({"system": system, "split": split, "type": t,
                         **{k: row[k] for k in ("pro", "anti", "avg", "diff")},
                         **{f"{k}_ci95": v for k, v in spans.items()}})
    notes = ["Fractions (the paper prints %). Avg: mean of Pro and Anti; Diff: the absolute "
             "difference of Pro and Anti (Zhao et al. 2018, table 2). CoNLL F1: the answers "
             "as clusters (the chosen occupation with the pronouns) scored against "
             "conll_format/ with MUC, B3 and CEAF-e; mean over the files of the row."]
    if ci:
        notes.append("[low, high]: 95% intervals: Wilson score intervals for Pro and Anti "
                     "over their sentences, Newcombe's interval for Pro - Anti (the signed "
                     "bias whose size is Diff).")
    return Table(title="WinoBias: accuracy on pro- and anti-stereotypical sentences",
                 header=header, rows=rows, tidy=tidy, label="tab:winobias", notes=notes)


class WinoBiasFolder(FolderRuns):
    """The release folder: the four sentence files of a split, run and scored whole."""

    caption = ("accuracy (fraction) per split and type on the pro- and anti-stereotyped files, "
               "and Diff = |Pro - Anti|")

    def is_folder(self, path: Path) -> bool:
        return path.is_dir() and any(path.glob("pro_stereotyped_type[12].txt.*"))

    def files(self, path: Path, *, split: str) -> list[FolderFile]:
        from refbench.tasks.winobias.read import data_files, file_kind

        out = []
        for f in data_files(path, split):
            k = file_kind(f)
            out.append(FolderFile(f, f"type{k.type}-{k.stereotype}/{k.split}",
                                  {"type": k.type, "stereotype": k.stereotype}))
        return out

    def every_file(self, path: Path) -> list[Path]:
        from refbench.tasks.winobias.read import SPLITS, data_files

        return [f for s in SPLITS for f in data_files(path, s)]

    def folder_of(self, file: Path) -> Path | None:
        """A release file's folder, by the file's name (also where the folder is not here: a
        store's run recorded on another machine)."""
        from refbench.tasks.winobias.read import FILE_NAME

        return file.parent if FILE_NAME.match(file.name) or self.is_folder(file.parent) \
            else None

    def combine(self, path: Path, runs: Sequence[tuple[dict[str, Any], dict[str, Any]]], *,
                split: str, model: str, system: str) -> dict[str, Any]:
        return {"task": "winobias", "mode": "release", "split": split, "gold": str(path),
                "data": str(path), "model": model, "system": system, "systems": [system],
                **combine([m for _, m in runs]),
                "cells": [{"file": Path(m["data"]).name, "n": m["n"],
                           "accuracy": m["accuracy"], "predictions": m["predictions"],
                           "run_id": m.get("run_id")} for _, m in runs]}

    def cell(self, metrics: dict[str, Any]) -> tuple[str, int]:
        from refbench.tasks.winobias.read import FILE_NAME, file_kind

        data = Path(str(metrics.get("data")))
        if not FILE_NAME.match(data.name):
            return super().cell(metrics)
        k = file_kind(data)
        return f"{k.split} type{k.type}", 1 if k.stereotype == "pro" else 2

    def column_label(self, column: int) -> str:
        return {1: "Pro", 2: "Anti"}.get(column, str(column))

    def group_summary(self, values: dict[int, float]) -> list[tuple[str, float | None]]:
        pro, anti = values.get(1), values.get(2)
        return [("Diff", abs(pro - anti) if pro is not None and anti is not None else None)]

    def evaluate(self, task: TaskCore, gold: Path, preds: Sequence[Path], *,
                 systems: Sequence[str] = (), split: str = "test", bootstrap: int = 1000,
                 seed: int = 0, on_invalid: InvalidInstances | None = None,
                 allow_missing: bool = False) -> dict[str, Any]:
        """A folder run's output (``refbench run --data FOLDER --out OUT``) against the
        release folder: each file's predictions from OUT's subfolder for it."""
        from refbench.tasks.answers import one_prediction, system_name

        out = one_prediction(preds, task.name, " (a folder run's --out)")
        runs = []
        for f, sub, _ in self.files(gold, split=split):
            r = task.evaluate(f, [out / sub], bootstrap=bootstrap, seed=seed,
                              on_invalid=on_invalid)
            r["data"] = r["gold"] = str(f)  # each file's cell and CoNLL scores say whose
            r["predictions"] = r.get("pred")
            runs.append(r)
        name = system_name(out, *systems[:1])
        return {"task": task.name, "mode": "release", "split": split, "gold": str(gold),
                "data": str(gold), "system": name, "systems": [name], **combine(runs),
                "cells": [{"file": Path(m["data"]).name, "n": m["n"],
                           "accuracy": m["accuracy"], "predictions": m["predictions"]}
                          for m in runs]}


class WinoBiasReport(Report):
    def plot(self, results: Sequence[dict[str, Any]], out: Path, *,
             metric: str | None = None) -> bool:
        """Pro, Anti and Diff per type with 95% intervals (:mod:`.figure`)."""
        from refbench.tasks.winobias.figure import plot_winobias

        return plot_winobias(results, out, combine=combine)

    def text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        if result.get("mode") == "release":
            return release_text(result, ci=ci)
        return file_text(result, ci=ci)

    def tables(self, results: Sequence[dict[str, Any]], *, metric: str | None = None,
               ci: bool = False) -> list[Table] | None:
        return [report_table(results, ci=ci)]


class WinoBiasExport(HfExport):
    def folder(self, path: Path) -> HfFolder | None:
        """One config per type and stereotype (``type1_pro``, ...), the released splits."""
        from refbench.tasks.winobias.read import SPLITS, data_files, file_kind

        if not WinoBiasFolder().is_folder(path):
            return None
        splits = [s for s in SPLITS if any(path.glob(f"*_stereotyped_type[12].txt.{s}"))]
        parts = [(file_kind(f), f) for s in splits for f in data_files(path, s)]
        parts.sort(key=lambda kf: (kf[0].type, kf[0].stereotype != "pro",
                                   SPLITS.index(kf[0].split)))
        return HfFolder(tuple(HfPart(f"type{k.type}_{k.stereotype}", k.split, f)
                              for k, f in parts))
