"""Building the app's indexes in the background while it already answers (``refbench serve``).

The server starts and its home page answers within seconds whatever the data: a
:class:`Warmer` thread indexes every dataset whose index is not in the cache folder yet (and
loads every system's predictions into it), one dataset at a time, the files read by a pool of
worker processes. Meanwhile a page that needs an index not built yet answers "indexing, N%"
(503 with ``Retry-After``, refreshed by the browser) and that dataset is indexed next; the
home page shows each dataset's state. N is the share of the bytes to index that are read.
Beside it, another thread imports the plotting and statistics libraries the comparison pages
use, so that no page pays for their imports.
"""

from __future__ import annotations

import logging
import sys
import threading
from concurrent.futures import Executor, ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from flask import Flask, current_app, render_template, request

from refbench.core.errors import RefbenchError
from refbench.web.catalog import Catalog
from refbench.web.datasets import Dataset
from refbench.web.index import StillIndexing, ignore_interrupts
from refbench.web.index_health import remove_own_temporaries

LOG = logging.getLogger(__name__)
RETRY_S = 2


def _size(ds: Dataset) -> int:
    total = 0
    for f in ds.files:
        try:
            total += f.stat().st_size
        except OSError:
            continue
    return total


class _Stopped(Exception):  # the server is stopping
    pass


class Warmer:
    """Indexes the catalog's datasets in a daemon thread, the one a request asks for first."""

    def __init__(self, catalog: Catalog, *, workers: int = 1) -> None:
        self.catalog = catalog
        self.workers = workers
        self._lock = threading.Lock()
        self._order = list(catalog.datasets)
        self._sizes = {k: _size(ds) for k, ds in catalog.datasets.items()}
        self._done_bytes = 0
        self._total_bytes = sum(self._sizes.values())
        self.current: str | None = None
        self.building: str | None = None  # the label of the dataset whose index is built
        self.finished = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="refbench-index", daemon=True)

    def start(self) -> Warmer:
        """Start on the queue (every dataset; returns at once: the indexes' sha256 checks and
        builds happen in the thread)."""
        self.catalog.index.background = self
        self._thread.start()
        threading.Thread(target=self._guarded, args=(preload, Path("(charts, statistics)")),
                         name="refbench-preload", daemon=True).start()
        return self

    def stop(self, timeout: float = 30) -> str | None:
        """Stop after the files being read (the server is stopping): the index being built
        is left unfinished (nothing of it kept: its temporary file is removed, by this thread
        if the builder does not stop in time), the others as they are. Returns the label of
        the dataset whose index was being built (None: none was)."""
        self._stop.set()
        with self._lock:
            self._order.clear()
            building = self.building
        if self._thread.is_alive():
            self._thread.join(timeout)
        if self._thread.is_alive():  # still reading a large file: its index is not kept
            remove_own_temporaries(self.catalog.index.folder)
        return building

    def is_builder(self) -> bool:
        return threading.current_thread() is self._thread

    def percent(self) -> int:
        with self._lock:
            if self._total_bytes <= 0:
                return 0
            return min(99, int(100 * self._done_bytes / self._total_bytes))

    def wants(self, ds: Dataset) -> int:
        """A request needs ``ds``: index it next; the progress so far."""
        with self._lock:
            if ds.key in self._order:
                self._order.remove(ds.key)
                self._order.insert(0, ds.key)
        return self.percent()

    def state(self, ds: Dataset) -> str:
        """What the home page says of a dataset without an index yet."""
        if ds.key == self.current:
            return f"indexing, {self.percent()}%"
        return "queued for indexing"

    def _file_done(self, f: Path) -> None:
        if self._stop.is_set():
            raise _Stopped
        try:
            size = f.stat().st_size
        except OSError:
            return
        with self._lock:
            self._done_bytes += size

    def _next(self) -> str | None:
        with self._lock:
            self.current = self._order.pop(0) if self._order else None
            return self.current

    def _run(self) -> None:
        pool: Executor | None = None
        try:
            while (key := self._next()) is not None:
                ds = self.catalog.datasets.get(key)
                if ds is None:
                    continue
                if not self.catalog.index.is_current(ds) and pool is None \
                        and self.workers > 1:
                    pool = ProcessPoolExecutor(max_workers=self.workers,
                                               mp_context=get_context("forkserver"),
                                               initializer=ignore_interrupts)
                self._warm(ds, pool)
                with self._lock:  # an index found current counts as read
                    self._done_bytes = max(self._done_bytes, sum(
                        self._sizes.get(k, 0) for k in self._sizes
                        if k not in self._order and k != self.current))
        finally:
            if pool is not None:
                pool.shutdown(cancel_futures=True)
            with self._lock:
                self.current = None
            self.catalog.index.background = None
            self.finished.set()

    @staticmethod
    def _guarded(work: Any, what: Path) -> None:
        try:
            work()
        except Exception:  # never let one dataset stop the others
            LOG.exception("reading %s failed", what)

    def _warm(self, ds: Dataset, pool: Executor | None) -> None:
        from refbench.web.predictions import ensure_system

        counted = self._done_bytes
        building = None if self.catalog.index.is_current(ds) else ds.label
        with self._lock:
            self.building = building
        try:
            try:
                self.catalog.index.ensure(ds, workers=self.workers, pool=pool,
                                          on_file=self._file_done)
            finally:
                with self._lock:
                    self.building = None
        except _Stopped:
            return
        except RefbenchError as exc:  # a file its reader rejects: not shown, not fatal
            self.catalog.datasets = {k: v for k, v in self.catalog.datasets.items()
                                     if k != ds.key}
            self.catalog.skipped.append((str(ds.path), exc.render()))
            print(f"not shown: {exc.render()}", file=sys.stderr)
            return
        except Exception:  # never let one dataset stop the others
            LOG.exception("indexing %s failed", ds.path)
            return
        with self._lock:
            self._done_bytes = max(self._done_bytes, counted + self._sizes.get(ds.key, 0))
        for system in self.catalog.systems(ds):
            if self._stop.is_set():
                return
            try:
                ensure_system(self.catalog.index, ds, system)
            except Exception:
                LOG.exception("loading %s into %s failed", system.sid, ds.path)


def preload() -> None:
    """Import what the comparison and run pages draw and test with (matplotlib, statsmodels:
    seconds of imports) at start, so that no page pays for them."""
    import importlib

    from refbench.core.figures import pyplot

    pyplot()
    for name in ("statsmodels.stats.proportion", "statsmodels.stats.multitest"):
        importlib.import_module(name)


def index_state(ds: Dataset) -> str:
    """The home page's word for a dataset whose index is not there yet."""
    cat: Catalog = current_app.config["CATALOG"]
    background: Any = cat.index.background
    return background.state(ds) if background is not None else "not indexed yet"


def install(app: Flask) -> None:
    """The home page's index states, the "indexing, N%" answer of a page whose dataset is
    still being indexed, and compiled templates kept in the cache folder."""
    app.jinja_env.globals["index_state"] = index_state
    # templates compiled once, not at each start (their first pages were a quarter second)
    from jinja2 import FileSystemBytecodeCache

    from refbench.core.cache import cache_dir

    folder = cache_dir() / "jinja"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        app.jinja_env.bytecode_cache = FileSystemBytecodeCache(str(folder))
    except OSError:
        pass  # a cache folder that cannot be written: templates compiled in memory

    @app.errorhandler(StillIndexing)
    def still_indexing(exc: StillIndexing) -> Any:
        headers = {"Retry-After": str(RETRY_S)}
        message = (f"indexing, {exc.percent}%: this dataset is indexed next; the page "
                   f"reloads itself every {RETRY_S} s until it is there.")
        if request.headers.get("HX-Request"):
            return render_template("_error.html", code=503, title="Indexing",
                                   message=message), 503, headers
        headers["Refresh"] = str(RETRY_S)
        return render_template("error.html", code=503, title="Indexing",
                               message=message), 503, headers
