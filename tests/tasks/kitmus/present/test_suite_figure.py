"""One KITMUS suite figure: ``refbench run`` on a suite folder and ``refbench evaluate`` of the
run's folder give the same result, cell for cell and figure for figure (not only the figures
the run records: every one either writes), and the same report table, on the golden tiny
suite and on a real released subtask."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scripts.regen_golden import GOLDEN

from tests.conftest import OFFICIAL

#: What a cell says about where it came from rather than about the predictions.
PROVENANCE = {"gold", "predictions", "run_id", "runs", "n_cached", "n_missing"}


def figure(result: dict[str, Any]) -> dict[str, Any]:
    return {"split": result["split"], "systems": result["systems"],
            "random_baseline": result["random_baseline"],
            "cells": [{k: v for k, v in c.items() if k not in PROVENANCE}
                      for c in result["cells"]]}


def run_then_evaluate(suite: Path, out: Path, model: str) -> tuple[dict[str, Any],
                                                                     dict[str, Any]]:
    from refbench.runs.path import run_suite
    from refbench.tasks.kitmus.score.suite_eval import evaluate_suite

    run = run_suite(model, suite, out, store=None, progress=False)
    return run, evaluate_suite(suite, [out])


def same_figure(run: dict[str, Any], ev: dict[str, Any]) -> None:
    from refbench.tasks.kitmus.present.tables import report_tables

    assert figure(run) == figure(ev)
    assert [Path(c["gold"]).resolve() for c in run["cells"]] == \
        [Path(c["gold"]).resolve() for c in ev["cells"]]
    for ci in (False, True):
        (mine,), (theirs,) = report_tables([run], ci=ci), report_tables([ev], ci=ci)
        assert (mine.rows, mine.tidy) == (theirs.rows, theirs.tidy)


@pytest.mark.parametrize("model", ["random", "first"])
def test_run_and_evaluate_give_one_figure_on_the_tiny_suite(tmp_path: Path, model: str) -> None:
    run, ev = run_then_evaluate(GOLDEN, tmp_path / model, model)
    assert len(run["cells"]) > 1
    same_figure(run, ev)


def test_run_and_evaluate_give_one_figure_on_a_released_subtask(tmp_path: Path) -> None:
    subtask = OFFICIAL / "released" / "background-train" / "subtask_2_ents"
    if not subtask.is_dir():
        pytest.skip("the KITMUS release is not in ../shared/data")
    suite = tmp_path / "suite"
    (suite / "background-train").mkdir(parents=True)
    (suite / "background-train" / "subtask_2_ents").symlink_to(subtask)
    run, ev = run_then_evaluate(suite, tmp_path / "random", "random")
    assert [(c["variant"], c["n_entities"], c["n"]) for c in run["cells"]] == \
        [("background-pretrain", 2, 2000)]  # the paper's name
    same_figure(run, ev)
