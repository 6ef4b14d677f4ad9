"""Model selection never looks at test data: every trainer selects on a dev or validation split.

A training run keeps the checkpoint that scores best on its selection data; selecting on the
test split makes the test figure a tuned number, not a result. Two checks, one for files and one
for instances: a selection file named as a test split (``test.jsonl``, ``knowref_test.json``,
``test.tsv``: the word ``test`` between separators in the file name) is refused, and so are
instances whose reader recorded ``split: test`` or whose id names the test split (KITMUS:
``kitmus/VARIANT/subtask_4_ents/test:17``). Either is one ``error E100``
line, exit 2.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from refbench.core.errors import UsageError
from refbench.core.types import ChoiceInstance

TEST_FILE = re.compile(r"(?:^|[._\-\s])test(?:[._\-\s]|$)", re.IGNORECASE)
TEST_ID = re.compile(r"(?:^|/)test(?:[:/]|$)")  # kitmus/VARIANT/subtask_4_ents/test:17


def is_test_file(path: str | Path) -> bool:
    """Whether a file's name says it holds a test split."""
    return TEST_FILE.search(Path(path).name) is not None


def refuse_test_selection(path: str | Path | None = None,
                          instances: Iterable[ChoiceInstance] = (), *,
                          option: str = "--dev") -> None:
    """Refuse test data as selection data (a file named as a test split, or instances read
    from one)."""
    if path is not None and is_test_file(path):
        raise UsageError(f"{option} {path}: a test file cannot be selection data; select on a "
                         "dev or validation split and score the test split once")
    for x in instances:
        if str(x.metadata.get("split", "")).lower() == "test" or TEST_ID.search(x.id):
            raise UsageError(f"{option}: instance {x.id} comes from a test split; select on a "
                             "dev or validation split and score the test split once")
