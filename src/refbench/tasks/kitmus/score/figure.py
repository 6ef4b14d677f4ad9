"""The KITMUS suite figure, built in one place: the paper's variant x entities result
(``suite-results.json``) from scored subtasks. ``refbench run`` on a suite folder
(:meth:`~refbench.tasks.kitmus.folder.KitmusSuite.combine`, one run per subtask) and
``refbench evaluate`` of prediction folders
(:func:`~refbench.tasks.kitmus.score.suite_eval.evaluate_suite`, any number of runs per system
and subtask) both call :func:`subtask_cell` for each cell and :func:`suite_figure` for the
whole, so the same predictions give the same figure either way; the report's table, the plot,
the text and the web page only read what these write."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from refbench.tasks.kitmus.score.evaluate import HEADLINE

#: The figures a cell gives intervals for, and how the intervals were drawn.
_CI_FIGURES = ("pronoun_accuracy", "antecedent_f1")


def subtask_cell(system: str, variant: str, n_entities: int, scored: Mapping[str, Any],
                 **provenance: Any) -> dict[str, Any]:
    """One cell: one system on one subtask. ``scored`` is the scorer's result for one run
    (:func:`~refbench.tasks.kitmus.score.evaluate.score`, as a run records it) or for several
    runs (:func:`~refbench.tasks.kitmus.score.evaluate.aggregate_runs` with ``n`` and the
    pooled ``ci95``): the headline figures (the mean over runs), their sample standard
    deviation over several runs, ``n``, the number of runs and the 95% bootstrap intervals over
    instances. ``provenance`` (the gold, the predictions, a run id, ...) follows as given."""
    n_runs = int(scored.get("n_runs") or 1)
    cell: dict[str, Any] = {"system": system, "variant": variant, "n_entities": n_entities}
    for metric in HEADLINE:
        cell[metric] = scored.get(metric)
        if n_runs > 1 and f"{metric}_std" in scored:
            cell[f"{metric}_std"] = scored[f"{metric}_std"]
    ci = scored["ci95"]
    cell["ci95"] = {**{k: list(ci[k]) for k in _CI_FIGURES}, "resamples": ci["resamples"],
                    "seed": ci["seed"], "over": "instances"}
    cell.update(n=scored["n"], n_runs=n_runs)
    cell.update(provenance)
    return cell


def suite_figure(cells: Iterable[dict[str, Any]], chance: Mapping[str, float], *,
                 gold: str | Path, split: str, systems: Iterable[str], **extra: Any
                 ) -> dict[str, Any]:
    """The suite result: ``cells`` (from :func:`subtask_cell`, in the paper's variant order)
    and the chance level (pronoun accuracy of a uniform choice) per ``variant|entities``;
    ``extra`` (the model of a run, an evaluation's warnings) follows as given."""
    return {"task": "kitmus", "mode": "suite", "split": split, "gold": str(gold),
            "data": str(gold), "systems": list(systems), "cells": list(cells),
            "random_baseline": dict(chance), **extra}
