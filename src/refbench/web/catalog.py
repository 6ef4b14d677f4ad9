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
from refbench.core.identity import data_identity
from refbench.web.datasets import (
    Dataset,
    discover,
    open_dataset,
    suite_root_of,
)
from refbench.web.index import IndexFolder
from refbench.web.runs import RunInfo, System, all_runs, systems_for
from refbench.web.verdicts import shown_runs

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
        for run in self.runs():
            self._add_run_dataset(run)

    # -- runs ---------------------------------------------------------------------------------
    def runs(self) -> list[RunInfo]:
        with self._lock:
            now = time.monotonic()
            if now - self._runs_at > RUNS_TTL_S:
                # a refused record (core/seal.py) is listed under "Not shown", never shown
                self._runs, self.run_problems = shown_runs(*all_runs(self.config.store,
                                                                     self.config.run_dirs))
                self._runs_at = now
            return list(self._runs)

    def run(self, rid: str) -> RunInfo | None:
        return next((r for r in self.runs() if r.rid == rid), None)

    def not_shown(self, rid: str) -> str:
        """Why there is no run ``rid`` to show: the reason it is listed as unreadable or
        refused, else that there is none."""
        self.runs()
        why = next((why for _, why in self.run_problems if why.startswith(f"run {rid} ")), None)
        return why or f"There is no run {rid!r}."

    def _add_run_dataset(self, run: RunInfo) -> None:
        """Make a run's data browsable when no dataset given on the command line holds it:
        the file it read, when it still holds what the run read (else the run is listed as on
        data that is not served)."""
        if run.data is None or self._holder(run) is not None:
            return
        if run.data_sha256 and (not run.data.is_file()
                                or data_identity(run.data).sha256 != run.data_sha256):
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
        """The dataset a run answers: the one holding what it read."""
        return self._holder(run)

    def _holder(self, run: RunInfo) -> Dataset | None:
        """The served dataset holding what the run read (a file dataset before a folder)."""
        held = [d for d in self.datasets.values()
                if d.holds(run.task, run.data, run.data_sha256)]
        return min(held, key=lambda d: (d.is_folder, d.label), default=None)

    # -- systems ------------------------------------------------------------------------------
    def systems(self, ds: Dataset) -> list[System]:
        """The systems that answer instances of ``ds`` (every task's runs alike)."""
        return systems_for(ds, self.runs())

    def system_of(self, ds: Dataset, run: RunInfo) -> System | None:
        return next((s for s in self.systems(ds) if run in s.runs), None)
