"""The WinoBias figure of ``report --plot`` (issue 31, finding 7): Pro, Anti and Diff per type
with 95% intervals, the ones the results recorded or else Wilson's (Newcombe's for Diff), and a
title that says which."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import figure_texts

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "winobias"
# Wilson's 95% interval of 2 of 4, worked by hand: (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) /
# (1 + z²/n) with p = 0.5, n = 4, z = 1.96: (0.5 + 0.4802 ± 0.6861) / 1.9604.
WILSON_2_OF_4 = (0.1500, 0.8500)
# Newcombe's interval of 2/4 - 2/4: 0 ± sqrt((0.5 - 0.15)² + (0.85 - 0.5)²) = ± 0.4950; Diff is
# |Pro - Anti|, so its interval is [0, 0.4950].
NEWCOMBE_DIFF = (0.0, 0.4950)


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from refbench.runs.path import run_suite

    return run_suite("first", FIXTURE, tmp_path_factory.mktemp("wb") / "first", progress=False)


def test_bars_are_pro_anti_and_diff_with_wilson_intervals(first: dict[str, Any]) -> None:
    from refbench.tasks.winobias.figure import figure_bars
    from refbench.tasks.winobias.folder import combine

    bars, series, methods = figure_bars([first], combine)
    assert series == ["first"] and methods == {"Wilson"}
    assert set(bars) == {(panel, cat, "first") for panel in ("Type 1", "Type 2", "Both types")
                         for cat in ("Pro", "Anti", "Diff")}
    value, ci = bars[("Type 1", "Pro", "first")]
    assert value == first["type1_pro"] == 0.5
    assert ci == pytest.approx(WILSON_2_OF_4, abs=1e-4)
    value, ci = bars[("Type 1", "Diff", "first")]
    assert value == first["type1_diff"] == 0.0
    assert ci == pytest.approx(NEWCOMBE_DIFF, abs=1e-4)
    value, ci = bars[("Both types", "Anti", "first")]
    assert value == first["all_anti"] and first["winobias"]["rows"]["all"]["n_anti"] == 8


def test_recorded_intervals_win(first: dict[str, Any]) -> None:
    from refbench.tasks.winobias.figure import figure_bars
    from refbench.tasks.winobias.folder import combine

    r = copy.deepcopy(first)
    # the release's own intervals are Wilson's and Newcombe's: the figure draws the same
    assert r["ci95_methods"]["type1_pro"] == "wilson"
    bars, _, methods = figure_bars([r], combine)
    assert bars[("Type 1", "Pro", "first")][1] == pytest.approx(r["ci95"]["type1_pro"])
    assert methods == {"Wilson"}
    # bootstrap intervals recorded from the instances win; Diff's is |Pro - Anti|'s
    r["ci95"] = {"type1_pro": [0.1, 0.9], "type1_pro_minus_anti": [-0.3, 0.1]}
    r["ci95_methods"] = {}
    bars, _, methods = figure_bars([r], combine)
    assert bars[("Type 1", "Pro", "first")][1] == (0.1, 0.9)
    assert bars[("Type 1", "Diff", "first")][1] == (0.0, 0.3)
    assert bars[("Type 1", "Anti", "first")][1] == pytest.approx(WILSON_2_OF_4, abs=1e-4)
    assert methods == {"recorded", "Wilson"}


def test_file_runs_combine_like_the_folder_run(first: dict[str, Any]) -> None:
    """The web app has one run per sentence file: combined, they give the folder's table, and
    each file's own bootstrap interval is its cell's."""
    from refbench.tasks.winobias.figure import figure_bars
    from refbench.tasks.winobias.folder import combine

    files = [json.loads(p.read_text()) for p in
             sorted(Path(first["out_dir"]).rglob("metrics.json"))]
    assert len(files) == 4
    bars, series, methods = figure_bars(files, combine)
    folder, _, _ = figure_bars([first], combine)
    assert series == ["first"] and methods == {"recorded", "Wilson"}
    assert {k: v[0] for k, v in bars.items()} == {k: v[0] for k, v in folder.items()}
    pro1 = next(f for f in files if f["data"].endswith("pro_stereotyped_type1.txt.test"))
    assert bars[("Type 1", "Pro", "first")][1] == tuple(pro1["ci95"]["accuracy"])


def test_report_plot_draws_the_panels(first: dict[str, Any], tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from refbench.reporting.reporting import draw_plot
    from refbench.tasks.winobias import figure

    texts = figure_texts(monkeypatch, figure)
    random = dict(first, system="random", model="random")
    draw_plot([first, random], tmp_path / "wb.png")
    assert (tmp_path / "wb.png").read_bytes()[:4] == b"\x89PNG"
    for want in ("Type 1", "Type 2", "Both types", "Pro", "Anti", "Diff", "first", "random"):
        assert want in texts, want
    title = next(t for t in texts if t.startswith("WinoBias"))
    assert "Diff = |Pro" in title and "Wilson" in title and "Newcombe" in title


def test_a_report_of_several_tasks_draws_every_result(first: dict[str, Any], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A WinoBias result beside another task's: the shared bars of every result, never the
    WinoBias figure alone (which would leave the other task out without a word)."""
    import refbench.reporting.plots as plots
    from refbench.reporting.reporting import draw_plot
    from refbench.tasks.winobias import figure

    drawn: list[list[str]] = []
    monkeypatch.setattr(plots, "plot_results",
                        lambda results, out, **kw: drawn.append([r["task"] for r in results]))
    monkeypatch.setattr(figure, "save_figure", lambda *a, **kw: drawn.append(["winobias only"]))
    other = dict(first, task="winograd", system="first")
    draw_plot([first, other], tmp_path / "mixed.png")
    assert drawn == [["winobias", "winograd"]]
