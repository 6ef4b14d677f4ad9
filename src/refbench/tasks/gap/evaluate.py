"""GAP evaluation of any prediction file: the official scorer's figures plus choice accuracy.

Accepted predictions: a GAP system TSV (the scorer's headerless ``ID A-coref B-coref``, or the 9-
and 11-column files with a header), ``refbench run``'s ``predictions.jsonl`` or run folder, or any
answers JSONL. An answer ``0`` is "A TRUE, B FALSE", ``1`` is "A FALSE, B TRUE", null is both
FALSE; the other way round, a TSV row is the answer A or B when exactly one is TRUE. The runner
calls :func:`gap_answer_scores` on its own outputs, so ``run`` and ``evaluate`` agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.inputs import format_name
from refbench.core.invalid import InvalidInstances
from refbench.core.types import ChoiceInstance
from refbench.tasks.answers import prediction_file, read_choice_answers
from refbench.tasks.base import Task
from refbench.tasks.gap.read import read_gap_choices
from refbench.tasks.gap.score import read_system, score_gap_system

HEADLINE = ("f1", "precision", "recall", "f1_masculine", "f1_feminine", "bias")


def rows_from_answers(instances: Sequence[ChoiceInstance], answers: Sequence[int | None]
                      ) -> dict[str, tuple[bool | None, bool | None]]:
    return {i.id: (a == 0, a == 1) for i, a in zip(instances, answers, strict=True)}


def answers_from_rows(instances: Sequence[ChoiceInstance],
                      rows: dict[str, tuple[bool | None, bool | None]]) -> list[int | None]:
    out: list[int | None] = []
    for inst in instances:
        a, b = rows.get(inst.id, (None, None))
        out.append(0 if a and not b else 1 if b and not a else None)
    return out


def gap_answer_scores(gold_path: str | Path, instances: Sequence[ChoiceInstance],
                      answers: Sequence[int | None], *, pred: str = "",
                      on_invalid: InvalidInstances | None = None) -> dict[str, Any]:
    """The GAP scorer's headline figures for choice answers (what ``run`` reports), over the
    gold rows of ``instances`` (all of them for a whole run; the first N for ``--limit``)."""
    r = score_gap_system(gold_path, rows_from_answers(instances, answers), warnings=[],
                         pred=pred, on_invalid=on_invalid, only={i.id for i in instances})
    return {**{k: r[k] for k in HEADLINE}, "ci95": r["ci95"]}


def evaluate_gap(task: Task, gold_path: str | Path, pred_path: str | Path, *,
                 bootstrap: int = 1000, seed: int = 0,
                 on_invalid: InvalidInstances | None = None) -> dict[str, Any]:
    instances = list(read_gap_choices(gold_path, on_invalid=on_invalid))
    pred = prediction_file(pred_path)
    name = format_name(pred)
    if name.endswith(".tsv"):
        rows, warnings = read_system(pred)
        answers = answers_from_rows(instances, rows)
        norm = None
    else:
        read = read_choice_answers(pred, instances)
        answers, norm, warnings = read.answers, read.answers_norm, read.warnings
        rows = {k: v for k, v in rows_from_answers(instances, answers).items()
                if k not in read.missing_ids}  # a missing row is the scorer's "missing"
    # The scorer reads the gold again: the same malformed rows are skipped, reported once.
    again = InvalidInstances() if on_invalid is not None else None
    scored = score_gap_system(gold_path, rows, warnings=warnings, pred=str(pred),
                              on_invalid=again, bootstrap=bootstrap, seed=seed)
    result = task.choice_metrics(instances, answers, answers_norm=norm, bootstrap=bootstrap,
                                 seed=seed)
    intervals = {**(result.get("ci95") or {}), **scored.pop("ci95")}
    result.update(scored)
    if intervals:
        result["ci95"] = intervals
    return result

