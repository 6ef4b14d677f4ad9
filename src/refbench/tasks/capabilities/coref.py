"""The *coref* capability: gold read as coreference clusters mapped to choices (KITMUS), so a
coreference system's output runs as a choice model (``coref-output:PATH``): the candidate whose
mention shares a predicted cluster with the pronoun is its answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class CorefGold:
    def gold(self, path: Path) -> dict[str, Any]:
        """The gold documents of a data file, by instance id."""
        raise NotImplementedError

    def output(self, path: Path) -> Any:
        """A coreference system's output file, read once."""
        raise NotImplementedError

    def linked(self, gold: Any, iid: str, output: Any) -> set[int]:
        """The candidates the output links to the pronoun of instance ``iid``."""
        raise NotImplementedError
