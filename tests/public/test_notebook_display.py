"""How Results, Comparisons and Datasets show in a notebook (issue 51): escaped HTML tables
that say what a figure is of, bar charts whose bars keep their thickness from one row to
twenty, and one DataFrame of many Results."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import refbench
from refbench.core.result import Figure
from refbench.public.compare import Comparison
from tests.conftest import ROOT

TINY = ROOT / "tests" / "fixtures" / "winograd" / "wsc-tiny.jsonl"
NAME = "fixtures/winograd/wsc-tiny.jsonl"  # the data's display name


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """The tiny Winograd file with markup in a context and a candidate."""
    lines = [json.loads(x) for x in TINY.read_text().splitlines() if x.strip()]
    lines[0]["sentence"] = "<script>alert(1)</script> " + lines[0]["sentence"]
    lines[0]["option1"] = "<b>piano</b>"
    out = tmp_path / "wsc-hostile.jsonl"
    out.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return out


def test_a_dataset_shows_its_counts_and_first_rows_escaped(hostile: Path) -> None:
    html = refbench.load(hostile)._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;piano&lt;/b&gt; | door" in html
    assert "3 instances (3 with gold; candidates per instance: 2: 3)" in html
    assert html.count("<tr>") == 1 + 3  # the header and the three rows


def test_a_result_and_a_comparison_show_what_they_are_of() -> None:
    first = refbench.run("first", TINY, store=None, progress=False, system="fi<r>st")
    part = refbench.run("first", TINY, store=None, progress=False, limit=2)
    rand = refbench.run("random", TINY, store=None, progress=False)
    assert isinstance(first, refbench.Result) and isinstance(part, refbench.Result)
    assert isinstance(rand, refbench.Result)
    html = first._repr_html_()
    assert "<b>fi&lt;r&gt;st</b> on <b>fixtures/winograd/wsc-tiny.jsonl</b>" in html
    low, high = first.intervals["accuracy"]
    assert f"<td>accuracy</td><td>{first.figures['accuracy']:.4g}</td>" \
           f"<td>[{low:.3f}, {high:.3f}]</td>" in html
    assert "3 instances" in html and "partial" not in html
    assert "2 of 3 instances (partial: --limit)" in part._repr_html_()
    assert ">partial</b>" in part._repr_html_()
    comparison = refbench.compare([first, rand])
    table = comparison._repr_html_()
    pair = comparison.pairs[0]
    assert table.count("<tr>") == 2 and f"<td>{pair.n}</td>" in table
    assert f"{pair.diff:+.3f} [{pair.diff_low:+.3f}, {pair.diff_high:+.3f}]" in table


def _bar_inches(fig: object) -> float:
    """The height of one row of a bar chart, in inches."""
    ax = fig.axes[0]  # type: ignore[attr-defined]
    low, high = sorted(ax.get_ylim())
    return float(ax.get_position().height * fig.get_figheight() / (high - low))  # type: ignore[attr-defined]


def test_plots_keep_a_bar_readable_at_one_row_and_at_twenty() -> None:
    result = refbench.run("first", TINY, store=None, progress=False)
    assert isinstance(result, refbench.Result)
    one = result.plot()
    figures = tuple(Figure(f"slice_{k}", k / 20, (k / 20, min(1.0, k / 20 + 0.1)))
                    for k in range(20))
    twenty = dataclasses.replace(result, figures=figures).plot()
    assert len(one.axes[0].patches) == 1 and len(twenty.axes[0].patches) == 20
    assert one._repr_png_().startswith(b"\x89PNG\r\n\x1a\n")  # a notebook shows it
    # one bar is no strip: a row is as tall as a row of twenty (about 0.3 inch, 24 px at
    # matplotlib's default 100 dpi... and more), and twenty rows do not overlap
    assert _bar_inches(one) >= 0.3 and _bar_inches(twenty) >= 0.25
    assert [t.get_text() for t in twenty.axes[0].get_yticklabels()] == \
        [f"slice_{k}" for k in range(20)]
    pair = refbench.compare([result, refbench.run("last", TINY, store=None, progress=False)]
                            ).pairs[0]
    many = Comparison(tuple(dataclasses.replace(pair, a=f"s{k}") for k in range(20)), 10, 0)
    assert _bar_inches(many.plot()) >= 0.25
    assert _bar_inches(Comparison((pair,), 10, 0).plot()) >= 0.3


def test_results_frame_is_one_table_of_systems_and_benchmarks() -> None:
    runs = [refbench.run(m, TINY, store=None, progress=False) for m in ("first", "last")]
    frame = refbench.results_frame(runs)
    assert list(frame.columns[:6]) == ["system", "benchmark", "task", "split", "figure",
                                       "value"]
    head = frame[frame.headline]
    assert list(head.system) == ["first", "last"] and set(head.benchmark) == {NAME}
    table = head.pivot(index="system", columns="benchmark", values="value")
    assert table.loc["first", NAME] == runs[0].figures["accuracy"]  # type: ignore[union-attr]
    with pytest.raises(refbench.RefbenchError, match="results_frame takes Results"):
        refbench.results_frame(["first"])
