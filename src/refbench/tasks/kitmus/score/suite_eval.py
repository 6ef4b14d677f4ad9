"""Score whole suites: every (variant, entities) subtask of a gold suite against folders of
predictions (one folder per system, any number of runs each), as a paper-style table.

Prediction files are matched by the variant name (or its alias), ``subtask_<n>_ents`` and the
split anywhere in their path below the system folder: ``refbench run``'s suite folders
(``<variant>/subtask_<n>_ents/<split>/predictions.jsonl``, or without the split folder when the
run's ``metrics.json`` names the data), ``c2f/background-train/subtask_2_ents/test.jsonlines``,
or ``c2f/c2f-run1.background-train.subtask_2_ents.test.jsonlines.gz``.

Each cell carries n, the bootstrap 95% interval of pronoun accuracy and antecedent F1 (over
instances; with several runs, of the runs' pooled counts, so the interval is that of the mean
accuracy), and the runs' mean and sample standard deviation.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.inputs import format_name
from refbench.core.invalid import InvalidInstances
from refbench.metrics.bootstrap import Sums, bootstrap_cis, f1_stat
from refbench.tasks.files import split_from_name
from refbench.tasks.kitmus.instance import SUBTASK_DIR
from refbench.tasks.kitmus.registries import KITMUS_VARIANTS, canonical_variant, variant_order
from refbench.tasks.kitmus.score.evaluate import aggregate_runs, chance_accuracy, score
from refbench.tasks.kitmus.score.figure import subtask_cell, suite_figure
from refbench.tasks.kitmus.score.gold import read_gold
from refbench.tasks.kitmus.score.predictions import read_predictions

_PRED_EXT = (".jsonlines", ".v4_gold_conll", ".conll", ".tsv", ".jsonl")
SUITE_RESULTS = "suite-results.json"


def find_gold(root: Path, split: str) -> dict[tuple[str, int], Path]:
    """Gold file per subtask: native JSONL if present, else full-text then task-text CoNLL."""
    found: dict[tuple[str, int], Path] = {}
    for sub in sorted(p for p in root.rglob("subtask_*_ents") if p.is_dir()):
        m = SUBTASK_DIR.match(sub.name)
        if not m:
            continue
        candidates = [sub / f"{split}.jsonl", sub / f"{split}.jsonl.gz"]
        for view in ("full-text", "task-text-only"):
            candidates += [sub / view / f"{split}.v4_gold_conll",
                           sub / view / f"{split}.v4_gold_conll.gz"]
        gold = next((c for c in candidates if c.is_file()), None)
        if gold is not None:
            found[(canonical_variant(sub.parent.name), int(m.group(1)))] = gold
    if not found:
        raise RefbenchError(f"no gold files for split {split!r} (expected <variant>/subtask_<n>_"
                            "ents/<split>.jsonl or .../full-text/<split>.v4_gold_conll)", path=root)
    return dict(sorted(found.items(), key=lambda kv: (variant_order(kv[0][0]), kv[0])))


def _names_for(variant: str) -> list[str]:
    return [variant, *(a for a, t in KITMUS_VARIANTS.aliases().items() if t == variant)]


def _run_split(p: Path) -> str | None:
    """The split of a run's ``predictions.jsonl``, from the ``metrics.json`` beside it."""
    meta = p.parent / "metrics.json"
    if p.name != "predictions.jsonl" or not meta.is_file():
        return None
    try:
        m = json.loads(meta.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(m, dict):
        return None
    return str(m["split"]) if m.get("split") else split_from_name(str(m.get("data", "")))


def match_predictions(system_dir: Path, variant: str, n: int, split: str) -> list[Path]:
    out = []
    names = _names_for(variant)
    for p in sorted(system_dir.rglob("*")):
        if not p.is_file():
            continue
        base = format_name(p)
        if not base.endswith(_PRED_EXT):
            continue
        rel = "/" + str(p.relative_to(system_dir)).replace("\\", "/") + "/"
        if f"subtask_{n}_ents" not in rel:
            continue
        if not re.search(rf"[/.:_-]{re.escape(split)}[/.:_-]", rel) and _run_split(p) != split:
            continue
        if any(re.search(rf"[/.]{re.escape(v)}[/.]", rel) for v in names):
            out.append(p)
    return out


def folder_system(folder: Path) -> str:
    """A system folder's name in tables: the name its suite run recorded, else the folder's."""
    results = folder / SUITE_RESULTS
    if results.is_file():
        try:
            names = json.loads(results.read_text(encoding="utf-8")).get("systems") or []
        except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
            names = []
        if len(names) == 1 and names[0]:
            return str(names[0])
    return folder.resolve().name


def _pooled_cis(columns: list[dict[str, list[int]]], *, bootstrap: int, seed: int
                ) -> dict[str, tuple[float, float]]:
    """Intervals of the mean over runs: instances resampled, each run's counts summed."""
    k = len(columns)
    pooled = {key: [sum(c[key][i] for c in columns) for i in range(len(columns[0][key]))]
              for key in ("correct", "tp", "fp", "fn")}

    def mean_accuracy(sums: Sums, n: int) -> Any:
        return sums["correct"] / (n * k)

    return bootstrap_cis(pooled, {"pronoun_accuracy": mean_accuracy, "antecedent_f1": f1_stat},
                         resamples=bootstrap, seed=seed)


def score_cell(gold: list[Any], files: list[Path], *, bootstrap: int, seed: int
               ) -> dict[str, Any]:
    """The scorer's figures of one or several runs of one system on one subtask, for
    :func:`~refbench.tasks.kitmus.score.figure.subtask_cell`."""
    columns: list[dict[str, list[int]]] = []
    runs = []
    for f in files:
        cols: dict[str, list[int]] = {}
        runs.append(score(gold, read_predictions(f), bootstrap=bootstrap, seed=seed,
                          columns=cols))
        columns.append(cols)
    agg = aggregate_runs(runs)
    if len(runs) == 1:
        ci = {k: list(runs[0]["ci95"][k]) for k in ("pronoun_accuracy", "antecedent_f1")}
    else:
        ci = {k: list(v) for k, v in _pooled_cis(columns, bootstrap=bootstrap,
                                                 seed=seed).items()}
    return {"runs": [str(f) for f in files], "n": runs[0]["n"],
            "n_missing": max(r["n_missing"] for r in runs),
            "ci95": {**ci, "resamples": bootstrap, "seed": seed},
            "warnings": [w for r in runs for w in r["warnings"]], **agg}


def evaluate_suite(gold_root: str | Path, systems: list[str | Path] | list[Path], *,
                   names: list[str] | None = None, split: str = "test",
                   bootstrap: int = 1000, seed: int = 0,
                   on_invalid: InvalidInstances | None = None,
                   allow_missing: bool = False) -> dict[str, Any]:
    """``systems``: one folder per system; ``names``: what to call them (default: the name a
    suite run recorded in the folder, else the folder's name). A system folder without
    predictions for one of the gold's subtasks is an error naming what is missing (a table
    with a silent ``-`` cell reads as complete), unless ``allow_missing``: then it is a
    warning and the cell stays empty."""
    gold_files = find_gold(Path(gold_root), split)
    folders = [Path(s) for s in systems]
    for sdir in folders:
        if not sdir.is_dir():
            raise RefbenchError("a system's predictions must be a folder in suite mode",
                                path=sdir)
    names = list(names or [])
    if names and len(names) != len(folders):
        raise UsageError(f"{len(names)} --system names for {len(folders)} prediction folders; "
                         "give one name per folder, in the same order")
    labels = names or [folder_system(f) for f in folders]
    if len(set(labels)) != len(labels):
        raise UsageError(f"two systems would share a name ({', '.join(labels)}); name them "
                         "with --system, one per folder")
    cells: list[dict[str, Any]] = []
    warnings: list[str] = []
    random_row: dict[str, float] = {}
    missing: list[str] = []
    for (variant, n), gold_path in gold_files.items():  # the paper's variant order
        gold = list(read_gold(gold_path, on_invalid=on_invalid))
        if not gold:
            raise RefbenchError("the gold holds no instances: nothing to score", path=gold_path)
        random_row[f"{variant}|{n}"] = chance_accuracy(gold)
        for sdir, label in zip(folders, labels, strict=True):
            files = match_predictions(sdir, variant, n, split)
            if not files:
                missing.append(f"{label}: {sdir}/{variant}/subtask_{n}_ents/{split}/"
                               "predictions.jsonl")
            if files:
                cell = score_cell(gold, files, bootstrap=bootstrap, seed=seed)
                warnings += [f"{label}, {variant}, {n} entities: {w}"
                             for w in cell.pop("warnings")]
                cells.append(subtask_cell(label, variant, n, cell, gold=str(gold_path),
                                          runs=cell["runs"], n_missing=cell["n_missing"]))
    if not cells:
        raise RefbenchError(f"no prediction files matched any gold subtask for split {split!r} "
                            "(expected <variant>/subtask_<n>_ents/ in each system folder)",
                            path=str(folders[0]) if folders else None)
    if missing:
        listed = "; ".join(missing[:5]) + (f"; and {len(missing) - 5} more"
                                            if len(missing) > 5 else "")
        if not allow_missing:
            raise RefbenchError(f"no predictions for {len(missing)} of the "
                                f"{len(gold_files) * len(folders)} system subtasks (expected, "
                                f"or another file naming the variant, subtask_<n>_ents and "
                                f"{split!r}): {listed}; give --allow-missing to score the rest")
        warnings.insert(0, f"no predictions for {len(missing)} system subtasks (left empty): "
                           + "; ".join(missing))
    return suite_figure(cells, random_row, gold=gold_root, split=split, systems=labels,
                        warnings=warnings)
