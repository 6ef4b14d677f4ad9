"""Every figure refbench writes keeps its text inside the canvas (issue 31, finding 8: the
single-subtask KITMUS plot and the WSC and WinoBias plots cut off their titles and legends):
the report's figures, the tasks' own, and the web app's charts.

Each figure is drawn by the code that writes it (``report --plot``'s :func:`draw_plot`, the
tasks' own plots, the web app's charts) from results of real runs on the fixtures; while it is
saved, every text the figure draws (titles, axis labels, tick labels, legend entries) is
recorded, and its window extent under the figure's renderer must lie within the figure.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from refbench.reporting.reporting import draw_plot
from tests.conftest import ROOT

FIX = ROOT / "tests" / "fixtures"
SUITE_FILE = ROOT / "tests" / "golden" / "kitmus-tiny" / "background-pretrain" / \
    "subtask_2_ents" / "test.jsonl"
LONG = ("llm-loglik:HuggingFaceTB/SmolLM2-360M-Instruct@0123456789abcdef0123 "
        "(reader options: --input full --max-words 512)")
TOLERANCE_PX = 1.0


def texts_outside(fig: Any) -> tuple[int, list[str]]:
    """Draw ``fig`` and return how many texts it drew and those whose extent leaves it."""
    from matplotlib.text import Text

    drawn: list[Text] = []
    original = Text.draw

    def spy(self: Any, renderer: Any) -> None:
        if self.get_visible() and self.get_text().strip():
            drawn.append(self)
        original(self, renderer)

    Text.draw = spy  # type: ignore[method-assign]
    try:
        fig.canvas.draw()
    finally:
        Text.draw = original  # type: ignore[method-assign]
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    bad = []
    for t in drawn:
        e = t.get_window_extent(renderer)
        if e.x0 < box.x0 - TOLERANCE_PX or e.y0 < box.y0 - TOLERANCE_PX \
                or e.x1 > box.x1 + TOLERANCE_PX or e.y1 > box.y1 + TOLERANCE_PX:
            bad.append(f"{t.get_text()!r}: x {e.x0:.0f}..{e.x1:.0f}, y {e.y0:.0f}..{e.y1:.0f} "
                       f"outside 0..{box.x1:.0f}, 0..{box.y1:.0f}")
    return len(drawn), bad


@pytest.fixture()
def saved(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, int, list[str]]]]:
    """(file, texts drawn, texts outside) of every figure saved while the test runs."""
    from matplotlib.figure import Figure

    found: list[tuple[str, int, list[str]]] = []
    original = Figure.savefig

    def savefig(self: Figure, fname: Any, *args: Any, **kwargs: Any) -> None:
        original(self, fname, *args, **kwargs)
        found.append((str(fname), *texts_outside(self)))

    monkeypatch.setattr(Figure, "savefig", savefig)
    yield found


def _renamed(result: dict[str, Any], name: str) -> dict[str, Any]:
    out = copy.deepcopy(result)
    out["system"] = name
    for cell in out.get("cells", []):
        if "system" in cell:
            cell["system"] = name
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Results of real runs of cheap models on the fixtures."""
    from refbench.runs.path import run_suite
    from refbench.runs.runner import run_model

    root = tmp_path_factory.mktemp("figure-runs")
    out: dict[str, Any] = {}
    for model in ("first", "random"):
        out[f"kitmus-{model}"] = run_model(model, SUITE_FILE, root / f"km-{model}",
                                           progress=False)
        for name, path in (("wsc", FIX / "winograd" / "wsc-tiny.jsonl"),
                           ("winograd", FIX / "web" / "winograd-punctuation.jsonl"),
                           ("gap", FIX / "gap" / "gap-dev.tsv"),
                           ("knowref", FIX / "knowref" / "knowref_sample.json")):
            out[f"{name}-{model}"] = run_model(model, path, root / f"{name}-{model}",
                                               progress=False)
        for name in ("winobias", "winogender"):
            out[f"{name}-{model}"] = run_suite(model, FIX / name, root / f"{name}-{model}",
                                               progress=False)
    out["winobias-files"] = [
        __import__("json").loads(p.read_text())
        for p in sorted((root / "winobias-first").rglob("metrics.json"))]
    return out


def _suite(runs: dict[str, Any]) -> list[dict[str, Any]]:
    """The whole KITMUS suite (every variant x 2, 3, 4 entities) for three systems, one with
    a long name, from a real run's metrics."""
    from refbench.tasks.kitmus.registries import KITMUS_VARIANTS
    from refbench.tasks.lookup import get_task

    folder = get_task("kitmus").folder
    assert folder is not None
    results = []
    for k, system in enumerate(("first", "random", LONG)):
        base = runs["kitmus-first" if k != 1 else "kitmus-random"]
        pairs = [({"variant": v, "n_entities": n}, base)
                 for v in KITMUS_VARIANTS.names() for n in (2, 3, 4)]
        results.append(folder.combine(SUITE_FILE.parents[2], pairs, split="test",
                                      model=system, system=system))
    return results


CASES = ("kitmus-one-subtask", "kitmus-suite", "wsc-bars", "every-task-bars", "winobias",
         "winobias-files", "winogender", "winogender-occupations", "tne-confusion",
         "web-slices", "web-scores", "web-documents")
VALUES = ("he", "she", "they", "<script>alert(1)</script>", "A & B",
          "background-inference-charfict-wordfict " * 3)


def draw(case: str, runs: dict[str, Any], out: Path) -> None:
    """Draw one figure as refbench writes it."""
    if case == "kitmus-one-subtask":
        draw_plot([runs["kitmus-first"]], out)
    elif case == "kitmus-suite":
        draw_plot(_suite(runs), out)
    elif case == "wsc-bars":
        draw_plot([runs["wsc-first"], runs["wsc-random"], _renamed(runs["wsc-first"], LONG),
                   runs["winograd-first"], runs["winograd-random"]], out)
    elif case == "every-task-bars":
        from refbench.reporting.plots import plot_results

        plot_results([runs[f"{t}-{m}"] for t in ("wsc", "winograd", "gap", "knowref")
                      for m in ("first", "random")] + [_renamed(runs["gap-first"], LONG)], out)
    elif case == "winobias":
        draw_plot([runs["winobias-first"], runs["winobias-random"],
                   _renamed(runs["winobias-first"], LONG)], out)
    elif case == "winobias-files":
        draw_plot(runs["winobias-files"], out)
    elif case == "winogender":
        draw_plot([runs["winogender-first"], runs["winogender-random"],
                   _renamed(runs["winogender-first"], LONG)], out)
    elif case == "winogender-occupations":
        from refbench.tasks.winogender.figure import plot_occupations

        plot_occupations([(name, runs[f"winogender-{m}"]["winogender"])
                          for name, m in (("first", "first"), ("random", "random"),
                                          (LONG, "first"))], out)
    elif case == "tne-confusion":
        from refbench.tasks.lookup import get_task

        tne = get_task("tne")
        assert tne.report is not None
        result = tne.evaluate(FIX / "tne" / "docs.jsonl", [FIX / "tne" / "predictions.jsonl"])
        tne.report.plot_result(result, out, title=f"TNE: {LONG}")
    elif case.startswith("web-"):
        from refbench.web import charts

        if case == "web-slices":
            series = ["first", "random", LONG]
            data = charts.slice_chart(
                [("pronoun", [(v, {s: (0.25 * (k % 4), 10 + k) for s in series})
                              for k, v in enumerate(VALUES)]),
                 ("answer position", [(str(k), {s: (0.5, 40) for s in series})
                                      for k in range(30)])],
                series, title=f"Accuracy by slice on {LONG}")
        elif case == "web-scores":
            m = runs["kitmus-random"]
            data = charts.score_chart([[0.1 * k, 0.05 * k, -1.0] for k in range(40)],
                                      [k % 3 == 0 if k % 5 else None for k in range(40)],
                                      title=f"Scores of {LONG} ({m['n']} instances)") or b""
        else:
            data = charts.documents_chart({LONG: [k / 50 for k in range(50)],
                                           "surface": [0.5] * 20},
                                          title=f"Per-document labeled F1 on {LONG}") or b""
        out.write_bytes(data)
    else:
        raise AssertionError(case)


@pytest.mark.parametrize("case", CASES)
def test_every_text_lies_inside_the_figure(case: str, runs: dict[str, Any], tmp_path: Path,
                                           saved: list[tuple[str, int, list[str]]]) -> None:
    out = tmp_path / (f"{case}.svg" if case.startswith("web-") else f"{case}.png")
    draw(case, runs, out)
    assert out.read_bytes()[:4] in (b"\x89PNG", b"<?xm")
    assert len(saved) == 1, saved
    _, n_texts, outside = saved[0]
    assert n_texts >= 5, "the check must see the figure's texts"
    assert outside == [], f"{case}: text outside the canvas:\n" + "\n".join(outside)


def test_the_check_sees_a_text_outside_the_figure() -> None:
    from refbench.core.figures import new_figure, pyplot

    fig, axes = new_figure(figsize=(3, 2))
    axes[0, 0].set_title("fits")
    fig.text(0.9, 0.5, "this sentence runs far past the right edge of the figure")
    n, bad = texts_outside(fig)
    pyplot().close(fig)
    assert n >= 2 and len(bad) == 1 and "runs far past" in bad[0]
