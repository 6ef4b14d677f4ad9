"""What ``refbench evaluate`` prints for a TNE result (:mod:`refbench.tasks.tne.present`): the
paper's percentages, worked by hand on refbench's own tiny document (the prediction of
tests/tasks/tne/test_tne.py's hand-worked metrics), and the confusion heat-map's title."""

from __future__ import annotations

from pathlib import Path

import pytest

from refbench.tasks.tne.metrics import evaluate_tne
from refbench.tasks.tne.predictions import TnePrediction
from refbench.tasks.tne.present import plot
from refbench.tasks.tne.present.report import TneReport
from refbench.tasks.tne.read import document_from_json
from tests.conftest import figure_texts
from tests.tasks.tne.test_tne import DOC


def _result() -> dict[str, object]:
    pred = TnePrediction("d1", {("np2", "np3"): "of", ("np3", "np5"): "by",
                                ("np3", "np4"): "on", ("np1", "np2"): "of"},
                         scores={("np2", "np4"): {"no-relation": 0.6, "in": 0.3, "of": 0.1},
                                 ("np2", "np5"): {"no-relation": 0.9, "of": 0.1}})
    result = evaluate_tne([document_from_json(DOC)], {"d1": pred})
    result["system"] = "hand"
    return result


def test_the_printed_figures_are_the_hand_worked_percentages() -> None:
    text = TneReport().text(_result())
    assert text is not None
    lines = text.splitlines()
    assert lines[0].startswith("hand on ") and lines[0].endswith(
        "(TNE figures in percent; --json gives fractions):")
    # 2 of 4 predicted links right with their preposition, of 6 gold: P 50, R 33.3, F1 40;
    # 3 of 4 right as links: P 75, R 50, F1 60
    assert lines[1] == "Labeled P/R/F1 50.0 / 33.3 / 40.0; unlabeled 75.0 / 50.0 / 60.0"
    # prepositions right on 2 of the 3 links found; of the 2 missed links with scores, 1
    assert lines[2] == ("IPrep-Acc 66.7, UPrep-Acc 50.0 (2 missed links with scores); "
                        "documents 1, without predictions 0")
    assert lines[5] == "Recall explicit / implicit: explicit 100.0 (n=2), implicit 25.0 (n=4)"


def test_the_heat_map_is_written_under_its_title(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    texts = figure_texts(monkeypatch, plot)
    out = tmp_path / "confusion.png"
    TneReport().plot_result(_result(), out, title="hand")
    assert out.stat().st_size > 0
    assert "TNE preposition confusion: hand (rows sum to 1)" in texts
