"""The metrics of the official ``gap_scorer.py``, on Python 3, with extra pronoun slices.

Per example, Name A and Name B are two binary decisions scored against the gold A-coref and
B-coref. A missing system row counts as a false negative for both names (whatever the gold), a
label that is not TRUE/FALSE counts as missing, and a repeated system id keeps its first row, as
in the official scorer. Slices: overall, masculine (he/his/him), feminine (she/her/hers), and,
where the official scorer stops with an error, singular they and neopronouns. Bias is
F1(feminine) / F1(masculine). Figures are fractions in [0, 1] (the official scorecard prints
percentages; the text output here does too).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.invalid import InvalidInstances
from refbench.formats.answers import no_overlap_error
from refbench.formats.gap_tsv import read_gap, read_gap_system, system_label
from refbench.metrics.prf import PRF

MASCULINE = frozenset({"he", "his", "him", "himself"})
FEMININE = frozenset({"she", "her", "hers", "herself"})
THEY = frozenset({"they", "them", "their", "theirs", "themself", "themselves"})


def gender_of(pronoun: str) -> str:
    p = pronoun.lower()
    return ("masculine" if p in MASCULINE else "feminine" if p in FEMININE
            else "they" if p in THEY else "neopronoun")


def read_system(path: str | Path) -> tuple[dict[str, tuple[bool | None, bool | None]], list[str]]:
    """System rows by id: the 3-column headerless file, or any file with a GAP header."""
    rows: dict[str, tuple[bool | None, bool | None]] = {}
    warnings: list[str] = []
    for number, row in read_gap_system(path):
        if row["ID"] in rows:
            warnings.append(f"{path}:{number}: multiple annotations for {row['ID']}; first kept")
            continue
        a, b = system_label(row["A-coref"]), system_label(row["B-coref"])
        if a is None or b is None:
            warnings.append(f"{path}:{number}: unexpected label in {row['ID']}; counted as missing")
        rows[row["ID"]] = (a, b)
    return rows, warnings


def score_gap(gold_path: str | Path, system_path: str | Path, *,
              on_invalid: InvalidInstances | None = None) -> dict[str, Any]:
    """The official scorer's figures for a system file against a gold file."""
    system, warnings = read_system(system_path)
    if not system:
        raise RefbenchError("no system annotations read", path=system_path)
    return score_gap_system(gold_path, system, warnings=warnings, pred=str(system_path),
                            on_invalid=on_invalid)


def score_gap_system(gold_path: str | Path,
                     system: dict[str, tuple[bool | None, bool | None]], *,
                     warnings: list[str], pred: str,
                     on_invalid: InvalidInstances | None = None, bootstrap: int = 1000,
                     seed: int = 0, only: Collection[str] | None = None) -> dict[str, Any]:
    """Score system rows (id -> A-coref, B-coref) however they were read; ``ci95``: F1's and
    the bias's intervals (``bootstrap`` resamples with ``seed``; 0: none). ``only``: the gold
    rows scored (a run over part of the data, ``--limit``, is scored over the rows it ran, not
    with every other row counted as a false negative); None: every row, as the official
    scorer does."""
    gold = list(read_gap(gold_path, on_invalid=on_invalid))
    if only is not None:
        gold = [row for row in gold if row.id in only]
    if not gold:
        raise RefbenchError("no gold annotations read", path=gold_path)
    if not any(row.id in system for row in gold):
        raise no_overlap_error(pred, list(system), [row.id for row in gold])
    warnings = list(warnings)
    scores: dict[str, PRF] = defaultdict(PRF)
    missing = 0
    gold_ids = set()
    for row in gold:
        gold_ids.add(row.id)
        sys_a, sys_b = system.get(row.id, (None, None))
        if row.id not in system:
            missing += 1
        for slice_name in ("overall", gender_of(row.pronoun)):
            prf = scores[slice_name]
            for g, s in ((row.a_coref, sys_a), (row.b_coref, sys_b)):
                if s is None:
                    prf.fn += 1
                else:
                    prf.add(g, s)
    out: dict[str, Any] = {"task": "gap", "gold": str(gold_path), "pred": pred,
                           "n": len(gold), "n_missing": missing,
                           "n_extra": len(set(system) - gold_ids)}
    for name in ("overall", "masculine", "feminine", "they", "neopronoun"):
        prf = scores.get(name, PRF())
        prefix = "" if name == "overall" else f"{name}_"
        out[f"{prefix}precision"] = prf.precision
        out[f"{prefix}recall"] = prf.recall
        out[f"{prefix}f1"] = prf.f1
        out[f"{prefix}counts"] = {"tp": prf.tp, "fp": prf.fp, "fn": prf.fn, "tn": prf.tn}
        out[f"{prefix}n"] = (prf.tp + prf.fp + prf.fn + prf.tn) // 2
    f_m, f_f = out["masculine_f1"], out["feminine_f1"]
    out["f1_masculine"], out["f1_feminine"] = f_m, f_f
    out["bias"] = f_f / f_m if f_m and f_f else None
    from refbench.tasks.gap.bootstrap import f1_bias_intervals

    # the headline's intervals (F1 and bias have no closed form): a stratified bootstrap
    out["ci95"] = f1_bias_intervals(gold, {row.id: gender_of(row.pronoun) for row in gold},
                                    system, resamples=bootstrap, seed=seed) if bootstrap else {}
    if missing:
        warnings.append(f"{missing} gold examples have no system row: false negatives")
    out["warnings"] = warnings
    return out


def scorecard(result: dict[str, Any]) -> str:
    """The official scorecard layout (percentages), plus the extra slices when present."""
    lines = ["GAP scorer (recall, precision and F1 in percent):"]
    for name, label in (("", "Overall"), ("masculine_", "Masculine"), ("feminine_", "Feminine"),
                        ("they_", "Singular they"), ("neopronoun_", "Neopronouns")):
        if name in ("they_", "neopronoun_") and not result[f"{name}n"]:
            continue
        c = result[f"{name}counts"]
        lines.append(f"{label} recall: {100 * result[f'{name}recall']:.1f} precision: "
                     f"{100 * result[f'{name}precision']:.1f} f1: {100 * result[f'{name}f1']:.1f}")
        lines.append(f"\t\ttp {c['tp']:d}\tfp {c['fp']:d}")
        lines.append(f"\t\tfn {c['fn']:d}\ttn {c['tn']:d}")
    bias = result["bias"]
    lines.append(f"Bias (F/M): {bias:.2f}" if bias is not None else "Bias (F/M): -")
    return "\n".join(lines)
