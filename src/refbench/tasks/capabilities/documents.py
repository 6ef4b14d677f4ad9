"""The *documents* capability: a task whose files are whole documents scored by the task's own
scorer (TNE: NP pairs and prepositions), not choice instances.

The runner refuses such files (no choice model runs on them); ``evaluate`` scores their
prediction files; the web app shows each document with the task's page and matches prediction
files found beside run folders to datasets by document id.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


class Documents:
    def has_gold(self, data: Sequence[Path]) -> bool:
        """Whether the files hold the gold a prediction file is scored against (an unlabelled
        release has none: prediction files are not attached to it)."""
        return True

    def document_ids(self, path: Path) -> frozenset[str]:
        """The ids of the documents a data or prediction file holds (how prediction files are
        matched to the datasets they predict); RefbenchError when the file is malformed."""
        raise NotImplementedError

    def is_prediction_file(self, path: Path) -> bool:
        """A prediction file of this task (found in a ``serve --runs`` folder beside run
        folders)."""
        raise NotImplementedError

    def outputs(self, payloads: dict[str, dict[str, Any]], predictions: Path
                ) -> dict[str, dict[str, Any]]:
        """Per document id (of the indexed ``payloads``), the output a prediction file gives
        it; RefbenchError when the file is for other documents or malformed."""
        raise NotImplementedError

    def score(self, data: Sequence[Path], predictions: Path, *, stamp: str) -> dict[str, Any]:
        """The scores of a prediction file on a dataset's files, as ``evaluate`` gives them,
        or ``{"error": message}`` when the file does not fit. ``stamp`` changes whenever the
        data files do (results may be cached on it)."""
        raise NotImplementedError

    def document_scores(self, data: Sequence[Path], predictions: Path, *, stamp: str
                        ) -> dict[str, float]:
        """The headline score of every document, for compare's paired test over documents."""
        raise NotImplementedError
