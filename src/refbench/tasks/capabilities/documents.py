"""The *documents* capability: a task whose files are whole documents scored by the task's own
scorer (TNE: NP pairs and prepositions), not choice instances.

The runner refuses such files (no choice model runs on them); the task's own commands write
its runs as ordinary run folders (``refbench tne baseline``); ``evaluate`` scores their
predictions; the web app attaches the runs to datasets by data identity like every run, shows
each document with the task's page and reads a run's predictions through :meth:`outputs`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


class Documents:
    def outputs(self, payloads: dict[str, dict[str, Any]], predictions: Path
                ) -> dict[str, dict[str, Any]]:
        """Per document id (of the indexed ``payloads``), the output a prediction file gives
        it; RefbenchError when the file is for other documents or malformed."""
        raise NotImplementedError

    def document_scores(self, data: Sequence[Path], predictions: Path, *, stamp: str
                        ) -> dict[str, float]:
        """The headline score of every document, for compare's paired test over documents."""
        raise NotImplementedError

    def texts(self, path: Path) -> Iterable[tuple[str, str]]:
        """(id, text) of every document of a data file: what the selection check compares with
        the test documents of the known releases (:mod:`refbench.tasks.selection`)."""
        raise NotImplementedError
