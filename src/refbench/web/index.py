"""The app's index: one SQLite file per dataset, with an FTS5 full-text table, the slice values
as indexed columns, and each instance's payload; built once, reused while the data is unchanged.

Why SQLite: a 100,000-instance suite must open in well under a second without loading it, and
search, slice filters, counts and keyset pagination are all single indexed queries. The index
lives in refbench's cache folder (``web-index/``; :mod:`refbench.core.cache`), named by its
content key (format and reader versions, every data file's sha256): the same data served from
anywhere reuses it, and only a dataset whose files changed is indexed again. A file is
written under a temporary name and renamed when complete, so an interrupted build never leaves
a half-index that looks finished; what a killed build leaves is removed at the next start, and
an index whose tables no longer hold the rows it recorded is built again
(:mod:`refbench.web.index_health`).

``refbench serve`` builds the indexes in a background thread (:mod:`refbench.web.warm`) while
it already answers, the files read by a pool of worker processes (started by a fork server,
so no threaded process is forked), one data file each with a bounded number of files in
flight; an index built before any thread exists may use forked readers; one built on first
visit without the background builder (``--no-warm``) is read in-process. Either way a single
writer inserts in batches, so memory stays bounded whatever the size.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import sys
import threading
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.identity import data_identity
from refbench.tasks.capabilities import WebView
from refbench.tasks.lookup import get_task
from refbench.web.datasets import Dataset
from refbench.web.index_health import (
    COMPLETE_KEY,
    completeness_record,
    incomplete,
    temporary_name,
)
from refbench.web.records import Problem, Record, file_records, view_of
from refbench.web.records import facet_names as facet_names

INDEX_VERSION = 11  # 11: a completeness record (10: porter stemming, texts for snippets)
BATCH = 2000
# Porter stemming over unicode61 words, so that "firefighter" finds "firefighters"; diacritics
# folded ("café" finds "cafe"). Exact phrases still match their words in order.
TOKENIZE = "porter unicode61 remove_diacritics 2"
Row = tuple[Any, ...]


def text_field_names(view: WebView) -> list[str]:
    """The task's named text fields, each an FTS column ``t_<name>`` beside ``body``."""
    return [name for name, _ in view.text_fields]


def pack(obj: Any) -> bytes:
    return zlib.compress(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode(), 1)


def unpack(blob: bytes) -> Any:
    return json.loads(zlib.decompress(blob))


def content_key(ds: Dataset) -> str:
    """What an index is keyed by: the format and reader versions, and each file's name in the
    dataset and sha256 (:func:`~refbench.core.identity.data_identity`, remembered across
    starts by size and time), so the same data anywhere shares one index, and a change to any
    file makes a new one."""
    from refbench.core.version import __version__

    h = hashlib.sha256(f"v{INDEX_VERSION}|{__version__}|{ds.kind}|{ds.task.name}|"
                       f"{ds.task.version}".encode())
    for f in ds.files:
        name = f.relative_to(ds.path) if ds.is_folder and ds.path in f.parents else f.name
        h.update(f"|{name}|{data_identity(f).sha256}".encode())
    return h.hexdigest()[:32]


def signature(ds: Dataset) -> str:
    from refbench.core.version import __version__

    # Reader changes between refbench releases rebuild the index too.
    h = hashlib.sha256(f"v{INDEX_VERSION}|{__version__}|{ds.kind}|{ds.task.name}|"
                       f"{ds.task.version}".encode())
    for f in ds.files:
        st = f.stat()
        h.update(f"|{f}|{st.st_size}|{st.st_mtime_ns}".encode())
    return h.hexdigest()[:32]


def _rows(kind: str, task_name: str, path: str) -> tuple[list[Row], list[str]]:
    """One data file's rows and the reader's messages for instances it rejected (run in a
    worker process for suites: the task crosses as its name)."""
    task = get_task(task_name)
    view = view_of(task)
    names, texts = facet_names(view), text_field_names(view)
    rows, problems = [], []
    for rec in file_records(kind, task, Path(path)):
        if isinstance(rec, Problem):
            problems.append(rec.message)
        else:
            rows.append(_row(view, names, texts, rec))
    return rows, problems


def _row(view: WebView, names: list[str], texts: list[str], rec: Record) -> Row:
    """Item columns, then the searched texts (body and each named field), then the payload."""
    return (rec.iid, view.match_key(rec.iid), rec.gold, rec.gold_label, rec.title,
            *(rec.facets.get(n) for n in names), rec.body,
            *(rec.fields.get(t, "") for t in texts), pack(rec.payload))


def _file_rows(ds: Dataset, workers: int, pool: Executor | None = None
               ) -> Iterator[tuple[Path, tuple[list[Row], list[str]]]]:
    """Rows per file in dataset order; with ``workers`` > 1, several files at once in forked
    processes (only safe before the process starts threads: see the module docstring); with
    ``pool`` (the background indexer's, whose processes do not fork a threaded server), in
    its processes."""
    if pool is not None:
        yield from _pooled(ds, pool, max(2, workers))
        return
    if workers <= 1 or len(ds.files) < 3:
        for f in ds.files:
            yield f, _rows(ds.kind, ds.task.name, str(f))
        return
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork"),
                             initializer=ignore_interrupts) as own:
        yield from _pooled(ds, own, workers)


def ignore_interrupts() -> None:
    """A reader process's start: Ctrl-C, which a terminal sends to the whole process group, is
    for the server to act on (it stops the pool); a reader that took it would print a
    traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _pooled(ds: Dataset, pool: Executor, workers: int
            ) -> Iterator[tuple[Path, tuple[list[Row], list[str]]]]:
    """Rows per file in dataset order, read in ``pool`` with at most 2 x ``workers`` files in
    flight (bounded memory)."""
    pending: list[tuple[Path, Future[tuple[list[Row], list[str]]]]] = []
    files = iter(ds.files)
    for f in files:
        pending.append((f, pool.submit(_rows, ds.kind, ds.task.name, str(f))))
        if len(pending) >= 2 * workers:
            break
    while pending:
        f, fut = pending.pop(0)
        nxt = next(files, None)
        if nxt is not None:
            pending.append((nxt, pool.submit(_rows, ds.kind, ds.task.name, str(nxt))))
        yield f, fut.result()


SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE items (n INTEGER PRIMARY KEY, iid TEXT NOT NULL, key TEXT NOT NULL,
                    gold INTEGER, gold_label TEXT NOT NULL, title TEXT NOT NULL{facets});
CREATE TABLE payloads (n INTEGER PRIMARY KEY, payload BLOB NOT NULL);
CREATE TABLE texts (n INTEGER PRIMARY KEY, texts BLOB NOT NULL);
CREATE VIRTUAL TABLE fts USING fts5(body{texts}, content='', tokenize='{tokenize}');
CREATE TABLE systems (sys TEXT PRIMARY KEY, signature TEXT NOT NULL, n_matched INTEGER NOT NULL,
                      n_unmatched INTEGER NOT NULL);
CREATE TABLE problems (file TEXT NOT NULL, message TEXT NOT NULL);
CREATE TABLE preds (sys TEXT NOT NULL, n INTEGER NOT NULL, answer INTEGER, correct INTEGER,
                    PRIMARY KEY (sys, n)) WITHOUT ROWID;
CREATE TABLE slice_counts (sys TEXT NOT NULL, slice TEXT NOT NULL, value TEXT NOT NULL,
                           n INTEGER NOT NULL, correct INTEGER NOT NULL);
CREATE TABLE outputs (sys TEXT NOT NULL, n INTEGER NOT NULL, output BLOB,
                      PRIMARY KEY (sys, n)) WITHOUT ROWID;
"""


def default_workers() -> int:
    return max(1, min(4, (os.cpu_count() or 1)))


def build_index(ds: Dataset, target: Path, *, progress: bool = True, workers: int = 1,
                pool: Executor | None = None, on_file: Callable[[Path], None] | None = None
                ) -> int:
    """Write the index of ``ds`` to ``target`` (atomically); returns the number of instances.
    ``pool``: read the files in its processes; ``on_file``: called with each file read."""
    names, texts = facet_names(ds.view), text_field_names(ds.view)
    n_items = 5 + len(names)
    tmp = temporary_name(target)
    tmp.unlink(missing_ok=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(tmp)
    try:
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        # Payloads (and systems' outputs) live in their own tables so that scans of items and
        # preds (counts, slices, joins) read narrow rows.
        db.executescript(SCHEMA.format(facets="".join(f", f_{n} TEXT" for n in names),
                                       texts="".join(f", t_{t}" for t in texts),
                                       tokenize=TOKENIZE))
        fts_cols = ", ".join(["rowid", "body", *(f"t_{t}" for t in texts)])
        fts_marks = ", ".join("?" * (2 + len(texts)))
        cols = ", ".join(["n", "iid", "key", "gold", "gold_label", "title",
                          *(f"f_{n}" for n in names)])
        marks = ", ".join("?" * (6 + len(names)))
        n = 0
        with tqdm(desc=f"indexing {ds.label}", unit="inst", disable=not progress) as bar:
            for f, (rows, problems) in _file_rows(ds, workers, pool):
                if on_file is not None:
                    on_file(f)
                db.executemany("INSERT INTO problems VALUES (?, ?)",
                               [(str(f), p) for p in problems])
                for i in range(0, len(rows), BATCH):
                    chunk = rows[i:i + BATCH]
                    db.executemany(f"INSERT INTO items ({cols}) VALUES ({marks})",
                                   [(n + k, *r[:n_items]) for k, r in enumerate(chunk)])
                    db.executemany("INSERT INTO payloads (n, payload) VALUES (?, ?)",
                                   [(n + k, r[-1]) for k, r in enumerate(chunk)])
                    db.executemany(f"INSERT INTO fts ({fts_cols}) VALUES ({fts_marks})",
                                   [(n + k, *r[n_items:-1]) for k, r in enumerate(chunk)])
                    db.executemany("INSERT INTO texts (n, texts) VALUES (?, ?)",
                                   [(n + k, pack(list(r[n_items:-1])))
                                    for k, r in enumerate(chunk)])
                    n += len(chunk)
                    bar.update(len(chunk))
        db.execute("CREATE INDEX items_key ON items (key)")
        db.execute("CREATE INDEX items_iid ON items (iid)")
        for name in names:
            db.execute(f"CREATE INDEX items_f_{name} ON items (f_{name})")
        meta = {"signature": signature(ds), "key": content_key(ds), "n": str(n),
                "task": ds.task.name, "kind": ds.kind, "path": str(ds.path),
                "facets": json.dumps(names),
                "text_fields": json.dumps(texts)}
        db.executemany("INSERT INTO meta VALUES (?, ?)", list(meta.items()))
        db.execute("INSERT INTO meta VALUES (?, ?)", (COMPLETE_KEY, completeness_record(db)))
        db.commit()
        db.execute("PRAGMA journal_mode=WAL")
        db.close()
        os.replace(tmp, target)
    except BaseException:
        db.close()
        tmp.unlink(missing_ok=True)
        raise
    return n


class StillIndexing(Exception):
    """The dataset's index is being built in the background (``serve`` answers "indexing,
    N%" until it is there)."""

    def __init__(self, percent: int) -> None:
        super().__init__(f"indexing, {percent}%")
        self.percent = percent


class IndexFolder:
    """The per-dataset index files in refbench's cache folder, named by their content
    (:func:`content_key`); builds each at most once at a time (a lock per dataset), and
    reuses it while the data is unchanged. With a ``background`` builder (``serve``), a
    request for an index not built yet raises :class:`StillIndexing` instead of building it
    in the request (the builder is told to do that one next)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._whole: set[Path] = set()  # indexes found complete (checked once per process)
        self._told: set[Path] = set()  # incomplete indexes already reported
        self.background: Any = None  # refbench.web.warm.Warmer while it runs

    def path_for(self, ds: Dataset) -> Path:
        # named by task and content only: a dataset's key names its folder too, and the same
        # data in another folder shares this index
        return self.folder / f"{ds.task.name}-{content_key(ds)}.sqlite"

    def _lock(self, key: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def is_current(self, ds: Dataset) -> bool:
        """Whether the dataset's index is there, of this content, and whole (its tables hold
        the rows it recorded: checked the first time in this process; an incomplete one is
        built again)."""
        path = self.path_for(ds)
        if not path.is_file():
            return False
        why = None
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
                row = db.execute("SELECT value FROM meta WHERE key = 'key'").fetchone()
                if row is None or row[0] != path.stem.rsplit("-", 1)[1]:
                    return False
                if path not in self._whole:
                    why = incomplete(db)
        except sqlite3.Error:
            return False
        if why is not None:
            if path not in self._told:
                self._told.add(path)
                print(f"index of {ds.label} is incomplete ({why}): indexing it again",
                      file=sys.stderr)
            return False
        self._whole.add(path)
        return True

    def ensure(self, ds: Dataset, *, progress: bool = False, workers: int = 1,
               pool: Executor | None = None, on_file: Callable[[Path], None] | None = None,
               ) -> Path:
        path = self.path_for(ds)
        background = self.background
        if background is not None and not background.is_builder() and not self.is_current(ds):
            raise StillIndexing(background.wants(ds))
        with self._lock(ds.key):
            if not self.is_current(ds):
                build_index(ds, path, progress=progress, workers=workers, pool=pool,
                            on_file=on_file)
                self._prune(ds, path)
        return path

    def _prune(self, ds: Dataset, keep: Path) -> None:
        """Remove this dataset's former indexes (same task and place, older data)."""
        for old in self.folder.glob(f"{keep.stem.rsplit('-', 1)[0]}-*.sqlite"):
            if old == keep:
                continue
            try:
                with sqlite3.connect(f"file:{old}?mode=ro", uri=True) as db:
                    row = db.execute("SELECT value FROM meta WHERE key = 'path'").fetchone()
                if row is not None and row[0] == str(ds.path):
                    old.unlink(missing_ok=True)
                    for extra in ("-wal", "-shm"):
                        old.with_name(old.name + extra).unlink(missing_ok=True)
            except (sqlite3.Error, OSError):
                continue

    def connect(self, ds: Dataset) -> sqlite3.Connection:
        db = sqlite3.connect(self.ensure(ds), timeout=30, check_same_thread=False)
        db.execute("PRAGMA busy_timeout=30000")
        return db

    def lock(self, ds: Dataset) -> threading.Lock:
        return self._lock(ds.key)


def item(db: sqlite3.Connection, n: int) -> dict[str, Any] | None:
    row = db.execute("SELECT i.n, iid, gold, gold_label, payload FROM items i JOIN payloads p "
                     "ON p.n = i.n WHERE i.n = ?", (n,)).fetchone()
    if row is None:
        return None
    return {"n": row[0], "iid": row[1], "gold": row[2], "gold_label": row[3],
            "payload": unpack(row[4])}


def find_n(db: sqlite3.Connection, iid: str, view: WebView) -> int | None:
    row = db.execute("SELECT n FROM items WHERE iid = ? UNION ALL SELECT n FROM items "
                     "WHERE key = ? LIMIT 1", (iid, view.match_key(iid))).fetchone()
    return None if row is None else int(row[0])


def problems(db: sqlite3.Connection, limit: int = 50) -> tuple[int, list[tuple[str, str]]]:
    """How many instances the readers rejected, and the first messages."""
    total = int(db.execute("SELECT count(*) FROM problems").fetchone()[0])
    return total, [(str(f), str(m)) for f, m in
                   db.execute("SELECT file, message FROM problems LIMIT ?", (limit,))]


def count(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT value FROM meta WHERE key = 'n'").fetchone()[0])
