"""The intervals every table and figure reads back from a result: an undefined one (written
``[null, null]`` by strict JSON, NaN by older runs) is no interval, never a crash."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from refbench.core.table import interval_of
from refbench.metrics.intervals import recorded_interval, wilson

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "winograd" / "wsc-tiny.jsonl"


@pytest.mark.parametrize("value", [[None, None], [math.nan, 0.5], [0.1, math.inf], [True, 1.0],
                                   ["0.1", "0.2"], [0.1], None, "x"])
def test_an_undefined_interval_is_none(value: object) -> None:
    assert interval_of({"accuracy": value}, "accuracy") is None
    assert recorded_interval({"ci95": {"accuracy": value}}, "accuracy") is None


def test_a_finite_interval_is_read_and_a_closed_form_one_is_left_to_the_figure() -> None:
    assert interval_of({"accuracy": [0, 1]}, "accuracy") == (0.0, 1.0)
    result = {"ci95": {"accuracy": [0.2, 0.6]}, "ci95_methods": {"accuracy": "wilson"}}
    assert recorded_interval(result, "accuracy") is None
    assert recorded_interval({"ci95": {"accuracy": [0.2, 0.6]}}, "accuracy") == (0.2, 0.6)
    got = wilson(2, 4)  # worked by hand in tests/tasks/winobias/test_figure.py
    assert got is not None and (round(got[0], 4), round(got[1], 4)) == (0.15, 0.85)


def test_report_of_a_result_with_an_undefined_interval(tmp_path: Path) -> None:
    """A result whose interval is [null, null] (e.g. evaluate --bootstrap 0 on a KITMUS file)
    gives a table and a plot without its interval (before: a TypeError traceback)."""
    from refbench.cli import app

    runner = CliRunner()
    ran = runner.invoke(app, ["run", "--model", "first", "--data", str(FIXTURE), "--out",
                              str(tmp_path / "r"), "--no-store"])
    assert ran.exit_code == 0, ran.output
    metrics = json.loads((tmp_path / "r" / "metrics.json").read_text())
    metrics["ci95"] = {"accuracy": [None, None]}
    (tmp_path / "e.json").write_text(json.dumps(metrics))
    shown = runner.invoke(app, ["report", str(tmp_path / "e.json"), "--ci", "--plot",
                                str(tmp_path / "p.png")])
    assert shown.exit_code == 0, shown.output
    assert "0.667" in shown.output and "None" not in shown.output
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"
