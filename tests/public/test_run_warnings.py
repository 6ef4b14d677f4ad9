"""refbench.run gives the lines `refbench run` prints as WARNING: as Python warnings
(RefbenchWarning), as refbench.evaluate does."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import refbench
from refbench.core.errors import RefbenchWarning

ROWS = [
    {"correct_candidate_idx": 1, "candidate0": ["Halvorsen"], "candidate1": ["Okafor"],
     "sentence_with_pronoun": "Halvorsen sought Okafor 's advice , but [he] never answered .",
     "correct_candidate": ["Okafor"], "oiginal_id": 1},
    {"correct_candidate_idx": 0, "candidate0": ["Brandt"], "candidate1": ["Iyer"],
     "sentence_with_pronoun": "Brandt thanked Iyer because [he] had fixed the roof .",
     "correct_candidate": ["Brandt"], "oiginal_id": 2},
]


def _knowref(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "knowref_test.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def test_a_run_s_warning_is_a_python_warning(tmp_path: Path) -> None:
    # candidate1 of the second instance is misspelt: it does not occur in its text
    rows = [ROWS[0], {**ROWS[1], "candidate1": ["Iyre"]}]
    data = _knowref(tmp_path, rows)
    with pytest.warns(RefbenchWarning, match=r"1 instance\(s\) name a candidate that does not "
                                             r"occur as whole words"):
        result = refbench.run("first", data, task="knowref", store=None, progress=False)
    assert isinstance(result, refbench.Result)
    assert result.coverage.n == 2


def test_a_clean_run_warns_nothing(tmp_path: Path) -> None:
    data = _knowref(tmp_path, ROWS)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RefbenchWarning)
        result = refbench.run("first", data, task="knowref", store=None, progress=False)
    assert isinstance(result, refbench.Result)
    assert result.value("accuracy") == 0.5  # `first` picks candidate 0: right once of two
