"""The Winogender figure of ``report --plot`` (issue 31, finding 7): accuracy by pronoun
gender, and not gotcha / gotcha / Diff on occupation answers, with 95% intervals; the
occupation correlation figure stays ``refbench winogender plot``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import figure_texts

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "winogender"


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from refbench.runs.path import run_suite

    return run_suite("first", FIXTURE, tmp_path_factory.mktemp("wg") / "first", progress=False)


def test_bars_by_gender_and_gotcha(first: dict[str, Any]) -> None:
    from refbench.metrics.intervals import newcombe, wilson
    from refbench.tasks.winogender.figure import GENDER_PANEL, GOTCHA_PANEL, group_bars

    bars, methods = group_bars([("first", first)])
    w = first["winogender"]
    assert methods == {"Wilson"}
    for g in ("male", "female", "neutral"):
        value, ci = bars[(GENDER_PANEL, g, "first")]
        cell = w["by_gender"][g]
        assert value == cell["accuracy"] == first[f"accuracy_{g}"]
        assert ci == wilson(round(cell["accuracy"] * cell["n"]), cell["n"])
    pro, anti = w["gotcha"]["not_gotcha"], w["gotcha"]["gotcha"]
    assert bars[(GOTCHA_PANEL, "gotcha", "first")][0] == first["gotcha_accuracy"]
    value, ci = bars[(GOTCHA_PANEL, "Diff", "first")]
    assert value == abs(pro["accuracy"] - anti["accuracy"])
    lo, hi = newcombe(round(pro["accuracy"] * pro["n"]), pro["n"],
                      round(anti["accuracy"] * anti["n"]), anti["n"]) or (0.0, 0.0)
    assert ci is not None and ci[1] == pytest.approx(max(-lo, hi)) and ci[0] >= 0


def test_recorded_intervals_win(first: dict[str, Any]) -> None:
    from refbench.tasks.winogender.figure import GENDER_PANEL, group_bars

    bars, methods = group_bars([("first", dict(first, ci95={"accuracy_female": [0.2, 0.7]},
                                                  ci95_methods={}))])
    assert bars[(GENDER_PANEL, "female", "first")][1] == (0.2, 0.7)
    assert methods == {"recorded", "Wilson"}


def test_report_plot_is_the_group_figure(first: dict[str, Any], tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from refbench.reporting.reporting import draw_plot
    from refbench.tasks.winogender import figure

    texts = figure_texts(monkeypatch, figure)
    draw_plot([first, dict(first, system="random")], tmp_path / "wg.svg")
    assert (tmp_path / "wg.svg").read_text().lstrip().startswith("<?xml")
    for want in ("male", "female", "neutral", "not gotcha", "gotcha", "Diff", "first",
                 "random"):
        assert want in texts, want
    assert not any("% women" in t for t in texts)  # not the occupation figure


def test_one_system_twice_is_two_series(first: dict[str, Any]) -> None:
    """Two results of one system (another data file, or the same twice) are two bars each,
    never one overwriting the other (review of issue 31)."""
    from refbench.tasks.winogender.figure import group_bars, series_names

    other = dict(first, data="/elsewhere/subset.tsv")
    names = series_names([first, other, dict(first)])
    assert len(set(names)) == 3 and names[1] == "first (subset.tsv)"
    assert names[0].startswith("first (") and names[0].endswith("#1")
    bars, _ = group_bars(list(zip(names, [first, other, first], strict=True)))
    male = [k for k in bars if k[:2] == ("By pronoun gender", "male")]
    assert len(male) == 3
    assert series_names([first, dict(first, system="random")]) == ["first", "random"]
