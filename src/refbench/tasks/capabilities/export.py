"""The *export* capability: what ``refbench export hf`` writes for a task whose files are not
plain choice instances (TNE's documents), or for a folder it takes whole (a KITMUS suite).

Without it, a data file's rows are its choice instances.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from refbench.tasks.hf_parts import HfFolder


class HfExport:
    def rows(self, path: Path) -> Iterator[dict[str, Any]] | None:
        """The rows of one data file, one JSON schema for every row; None: its choice
        instances."""
        return None

    def folder(self, path: Path) -> HfFolder | None:
        """The files of a folder exported whole, with the config and split each becomes; None
        when ``path`` is not such a folder. RefbenchError when it is one but unusable."""
        return None
