"""The one prepared folder that the doc-command test (README and guides) and the help-example
test (every ``--help``) share, once per test run.

The folder sits where a clone sits: ``shared`` in it is a link to ``../shared``, and ``data``
holds a link to each folder of ``../shared/data``, laid out as ``refbench data get`` leaves it
(it stands in for the network). Each test runs its commands in a fresh folder of its own
inside it (``docs-work``, ``help-work``), so that ``../shared/...`` means what it means beside
a checkout and neither test sees the other's files: each still starts as a newcomer does.

What the two share is what they would each pay for again: both run MiniLM over the same texts
(``study create altentities-collection --method similar-description`` on the AltEntities books
test set, about 40 CPU-seconds each here; the KITMUS similarity probe's pool sentences; the
WSC273 sentences), and both parse the same ``../shared/data`` files. So both run on one
pytest-xdist worker (the ``xdist_group`` of ``prepared_folder``, tests/conftest.py), where
the test run's parse cache (``REFBENCH_CACHE_DIR``) and MiniLM, loaded once per process, serve
both, and while either runs every sentence encoder keeps its embeddings in the folder's
memo (:func:`share_embeddings`): a text embedded by the first test is not embedded again
by the second. Only these two tests use the memo; every other test embeds afresh.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED


@dataclass(frozen=True)
class Prepared:
    """The prepared folder: ``root/shared`` (``../shared``), ``root/data`` (the data
    folder), and the sentence embeddings made in it, by the encoder's ``max_length``."""

    root: Path
    embeddings: dict[int, dict[str, Any]] = field(default_factory=dict)

    @property
    def data(self) -> Path:
        return self.root / "data"

    def fresh(self, name: str) -> Path:
        """A new, empty folder beside ``shared``, for one test's commands (``name``, else
        ``name-2``, ... when a test runs again in the same session)."""
        folder, n = self.root / name, 1
        while folder.exists():
            n += 1
            folder = self.root / f"{name}-{n}"
        folder.mkdir()
        return folder


def seed_data_folder(folder: Path) -> None:
    """The data folder as ``refbench data get`` leaves it: ../shared/data has the layout of
    the reference copy of the releases, so a link to each of its folders stands in for the
    network (``data get`` then checks the files and keeps them; ``--data winobias`` resolves)."""
    folder.mkdir()
    for entry in sorted((SHARED / "data").iterdir()):
        if entry.is_dir():
            (folder / entry.name).symlink_to(entry.resolve(), target_is_directory=True)


@pytest.fixture(scope="session")
def prepared_folder(tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    """The folder beside ``shared``, made once per test run (once per worker: one group)."""
    prepared = Prepared(tmp_path_factory.mktemp("beside-shared"))
    if SHARED.is_dir():
        (prepared.root / "shared").symlink_to(SHARED.resolve(), target_is_directory=True)
        seed_data_folder(prepared.data)
    return prepared


def share_embeddings(prepared: Prepared, monkeypatch: pytest.MonkeyPatch) -> None:
    """Until ``monkeypatch`` undoes it, every ``SentenceEncoder`` made keeps its embeddings in
    the prepared folder's memo (one per ``max_length``, which changes what a text embeds to)."""
    from refbench.nlp.encoder import SentenceEncoder

    original = SentenceEncoder.__init__

    def init(self: SentenceEncoder, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self._cache = prepared.embeddings.setdefault(self.max_length, {})

    monkeypatch.setattr(SentenceEncoder, "__init__", init)


@pytest.fixture()
def shared_embeddings(prepared_folder: Prepared,
                      monkeypatch: pytest.MonkeyPatch) -> dict[int, dict[str, Any]]:
    """The prepared folder's embedding memo, in use while the test runs."""
    share_embeddings(prepared_folder, monkeypatch)
    return prepared_folder.embeddings
