"""The app's view of the world: its datasets, the runs on them and where the index lives.

Datasets are fixed when the app starts (the paths given, plus the data of every run found, so
a run is always browsable); runs are re-read from the store at most every few seconds, so a run
recorded while the server is up appears without a restart.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from refbench.core.errors import RefbenchError
from refbench.web.cached import document_ids
from refbench.web.datasets import (
    Dataset,
    content_sha256,
    discover,
    open_dataset,
    suite_root_of,
)
from refbench.web.index import IndexFolder
from refbench.web.runs import RunInfo, System, all_runs, systems_for

RUNS_TTL_S = 3.0


@dataclass
class ServeConfig:
    data: list[Path] = field(default_factory=list)
    run_dirs: list[Path] = field(default_factory=list)
    store: Path = Path("results.sqlite")
    index_dir: Path | None = None  # default: web-index/ in refbench's cache folder
    # The model folder of each task's demo page (``serve --<demo.model_option>``), by task.
    demo_models: dict[str, Path] = field(default_factory=dict)

    @property
    def index_folder(self) -> Path:
        from refbench.core.cache import cache_dir

        return self.index_dir or cache_dir() / "web-index"


class Catalog:
    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.index = IndexFolder(config.index_folder)
        found = discover(config.data)
        self.datasets: dict[str, Dataset] = {d.key: d for d in found.datasets}
        self.skipped = list(found.skipped)
        self._runs: list[RunInfo] = []
        self._runs_at = -1.0
        self._lock = threading.Lock()
        self.run_problems: list[tuple[str, str]] = []
        self._gold: dict[str, bool] = {}  # documents datasets: whether they hold gold
        self._ids: dict[tuple[Path, int, int], frozenset[str]] = {}  # documents files' ids
        #: prediction files whose document ids cannot be read: attached nowhere, listed here
        self.prediction_problems: dict[str, str] = {}
        for run in self.runs():
            self._add_run_dataset(run)

    # -- runs ---------------------------------------------------------------------------------
    def runs(self) -> list[RunInfo]:
        with self._lock:
            now = time.monotonic()
            if now - self._runs_at > RUNS_TTL_S:
                self._runs, self.run_problems = all_runs(self.config.store, self.config.run_dirs)
                self._runs_at = now
            return list(self._runs)

    def run(self, rid: str) -> RunInfo | None:
        return next((r for r in self.runs() if r.rid == rid), None)

    def _add_run_dataset(self, run: RunInfo) -> None:
        """Make a run's data browsable when no dataset given on the command line holds it:
        the file it read, when it still holds what the run read (else the run is listed as on
        data that is not served)."""
        if run.data is None or self._holder(run) is not None:
            return
        if run.data_sha256 and (not run.data.is_file()
                                or content_sha256(run.data) != run.data_sha256):
            self.skipped.append((str(run.data), f"run {run.rid}: this file no longer holds "
                                 "the data the run read (its sha256 differs)"))
            return
        target = suite_root_of(run.data, run.task)
        try:
            ds = open_dataset(target or run.data)
        except RefbenchError:
            try:
                ds = open_dataset(run.data)
            except RefbenchError as exc:
                self.skipped.append((str(run.data), exc.message))
                return
        self.datasets.setdefault(ds.key, ds)

    def dataset_of(self, run: RunInfo) -> Dataset | None:
        """The dataset a run answers: the one holding its data file, or for a TNE prediction
        file the first TNE dataset whose documents it predicts."""
        if run.data is None:
            return next((d for d in self.datasets.values() if d.task.name == run.task
                         and any(run in s.runs for s in self.systems(d))), None)
        return self._holder(run)

    def _holder(self, run: RunInfo) -> Dataset | None:
        """The served dataset holding what the run read (a file dataset before a folder)."""
        held = [d for d in self.datasets.values()
                if d.holds(run.task, run.data, run.data_sha256)]
        return min(held, key=lambda d: (d.is_folder, d.label), default=None)

    # -- systems ------------------------------------------------------------------------------
    def systems(self, ds: Dataset) -> list[System]:
        """The systems that answer instances of ``ds``. TNE prediction files say nothing of
        their data: they count on the labelled datasets holding documents they predict."""
        if ds.task.documents is None:
            return systems_for(ds, self.runs())
        if not self._has_gold(ds):
            return []  # prediction files are scored against gold: none on unlabelled data
        held = frozenset().union(*(self._document_ids(ds, f) for f in ds.files))
        return systems_for(ds, self.runs(),
                           answers=lambda run: not held.isdisjoint(
                               self._document_ids(ds, run.predictions)))

    def _document_ids(self, ds: Dataset, path: Path) -> frozenset[str]:
        """A documents file's ids (none when it cannot be read: the home page lists it with
        why), cached on its size and modification time."""
        assert ds.task.documents is not None
        try:
            st = path.stat()
        except OSError:
            return frozenset()
        key = (path, st.st_size, st.st_mtime_ns)
        if key not in self._ids:
            background = self.index.background
            # while the background indexer runs, a page never reads a whole file for its ids:
            # the indexer reads them first (kept in the cache folder by content)
            compute = background is None or background.is_builder()
            try:
                ids = document_ids(ds.task.documents, path, compute=compute)
                if ids is None:
                    return frozenset()
                self._ids[key] = ids
                self.prediction_problems.pop(str(path), None)  # mended since it was listed
            except RefbenchError as exc:
                self._ids[key] = frozenset()
                self.prediction_problems[str(path)] = \
                    f"not attached to any dataset: its documents cannot be read ({exc})"
        return self._ids[key]

    def _has_gold(self, ds: Dataset) -> bool:
        if ds.key not in self._gold:
            assert ds.task.documents is not None
            self._gold[ds.key] = ds.task.documents.has_gold(ds.files)
        return self._gold[ds.key]

    def system_of(self, ds: Dataset, run: RunInfo) -> System | None:
        return next((s for s in self.systems(ds) if run in s.runs), None)
