"""Runs and systems: what models answered, found in the results store and in run folders.

A *run* is one model on one data file: a row of the results store, or a run folder
(``predictions.jsonl`` + ``metrics.json``) that ``refbench run`` or a task's own producer wrote;
every task's runs are the same kind of run. A *system* is what a page compares: every run of
one model configuration (model fingerprint) on the files of one dataset, so the 24 runs of
``refbench run --data SUITE`` are one system on the suite. When a file was run several times
by the same configuration, the latest complete run counts (a partial one, ``--limit``, only
when there is none). What a run is of and how much of it comes from its
:class:`~refbench.core.result.Result` (:attr:`RunInfo.result`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import read_jsonl
from refbench.core.result import (
    BY_LIMIT,
    Coverage,
    DataIdentity,
    Result,
    SystemIdentity,
    data_sha256,
    names_apart,
)
from refbench.runs.store import Store
from refbench.tasks.capabilities import PLAIN
from refbench.tasks.lookup import find_task
from refbench.web.datasets import Dataset


@dataclass(frozen=True)
class RunInfo:
    rid: str  # s<run_id> (store), d<hash> (run folder)
    model: str
    fingerprint: str
    task: str
    data: Path | None  # the data file the run read (None: it is no longer where it was)
    predictions: Path
    created: str
    metrics: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    store_id: int | None = None
    source: str = "store"
    # The content of the data it read (None: a run recorded without it): a run belongs to a
    # served dataset holding that content, wherever either lies.
    data_sha256: str | None = None

    @cached_property
    def result(self) -> Result:
        """The run's result, read by the one reader (an older ``metrics.json`` migrated); when
        a partial run's file did not record how many instances its data holds, the data says."""
        try:
            found = Result.from_json({"task": self.task, "model": self.model,
                                      "model_fingerprint": self.fingerprint, "n": 0,
                                      **self.metrics}) if self.metrics else None
        except RefbenchError:
            found = None
        if found is None:
            return Result(task=self.task, system=SystemIdentity(self.model, self.fingerprint),
                          data=DataIdentity(None, None, self.predictions.name,
                                            str(self.predictions)),
                          coverage=Coverage(0))
        c = found.coverage
        if c.of is None and (facts := _data_facts(self)) is not None:
            # a --limit at least the data's size left it whole
            by = tuple(b for b in c.by if b != BY_LIMIT or c.n < facts[0])
            found = found.with_coverage(Coverage(c.n, facts[0], by))
        return found

    @property
    def name(self) -> str:
        """The name the run was given (``run --system``), else its model spec."""
        return self.result.system.name

    @property
    def headline(self) -> str:
        """Its accuracy, else (a task scored otherwise, TNE) the task's first leaderboard
        figure, with its name (``0.512 accuracy``, ``0.071 labeled F1``); "" when it has
        neither."""
        accuracy = self.result.value("accuracy")
        if accuracy is not None:
            return f"{accuracy:.3f} accuracy"
        task = find_task(self.task)
        key, label = ((task.web if task else None) or PLAIN).leaderboard_columns[0]
        value = self.result.value(key)
        return "" if value is None else f"{value:.3f} {label}"

    @property
    def is_partial(self) -> bool:
        """Scored on part of its data (``--limit``, a shard, missing predictions): never
        ranked with complete runs (:func:`refbench.core.result.complete_and_partial`)."""
        return self.result.is_partial


@dataclass
class System:
    sid: str
    label: str
    model: str
    fingerprint: str
    runs: list[RunInfo]

    @property
    def task(self) -> str:
        return self.runs[0].task

    @property
    def identity(self) -> SystemIdentity:
        """Which system it is (:func:`refbench.core.identity.system_of`, through its runs'
        Result): every run of a system has this model spec and fingerprint."""
        return self.runs[0].result.system

    @property
    def stamp(self) -> str:
        """Its identity and the state of its predictions files now (each run's size and
        modification time): what pages and the index cache a system's answers under, so they
        are read again when a file changes."""
        h = hashlib.sha256(repr(self.identity.key).encode())
        for run in self.runs:
            st = run.predictions.stat()
            h.update(f"{run.rid}|{run.predictions}|{st.st_size}|{st.st_mtime_ns}|".encode())
        return h.hexdigest()[:32]


def _hash(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:10]


def resolve_data(data: str, near: Path | None) -> Path | None:
    """A run's data path as recorded (possibly relative to where it was run from)."""
    p = Path(data)
    if p.is_absolute():
        return p.resolve() if p.exists() else None
    if p.exists():
        return p.resolve()
    for base in (near.resolve().parents if near is not None else ()):
        if (base / p).exists():
            return (base / p).resolve()
    return None


def store_runs(store_path: Path) -> list[RunInfo]:
    """Every run in the store whose predictions are still on disk (an absent store: none)."""
    if not store_path.is_file():
        return []
    store = Store(store_path, readonly=True)  # the viewer never writes, not even a migration
    try:
        out = []
        for row in store.runs(limit=10**9):
            full = store.get(int(row["run_id"]))
            out_dir = full.get("out_dir")
            if not out_dir:
                continue
            pred = Path(out_dir) / "predictions.jsonl"
            if not pred.is_file():
                continue
            metrics = full.get("metrics") or {}
            out.append(RunInfo(
                rid=f"s{full['run_id']}", model=str(full["model"]),
                fingerprint=str(full.get("model_fingerprint") or full["model"]),
                task=str(full["task"]), data=resolve_data(str(full["data"]), Path(out_dir)),
                predictions=pred.resolve(), created=str(full.get("created") or ""),
                metrics=metrics, store_id=int(full["run_id"]), source="store",
                data_sha256=full.get("data_sha256") or data_sha256(metrics)))
        return out
    finally:
        store.close()


def folder_runs(paths: Iterable[Path]) -> tuple[list[RunInfo], list[tuple[str, str]]]:
    """Runs in the run folders given with ``--runs`` (and the run folders inside them)."""
    runs: list[RunInfo] = []
    skipped: list[tuple[str, str]] = []
    for root in paths:
        if not root.exists():
            skipped.append((str(root), "no such file or folder"))
            continue
        files = [root] if root.is_file() else sorted(root.rglob("*"))
        found = 0
        for f in files:
            if f.name == "metrics.json" and (f.parent / "predictions.jsonl").is_file():
                try:
                    metrics = json.loads(f.read_text(encoding="utf-8"))
                    run = RunInfo(
                        rid="d" + _hash(str(f.parent.resolve())), model=str(metrics["model"]),
                        fingerprint=str(metrics.get("model_fingerprint") or metrics["model"]),
                        task=str(metrics["task"]),
                        data=resolve_data(str(metrics["data"]), f.parent),
                        predictions=(f.parent / "predictions.jsonl").resolve(),
                        created=str(metrics.get("provenance", {}).get("time", "")),
                        metrics=metrics, store_id=metrics.get("run_id"), source="folder",
                        data_sha256=data_sha256(metrics))
                except UnicodeDecodeError as exc:  # a problem listed; the server starts
                    skipped.append((str(f), f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x}"
                                            f" at offset {exc.start})"))
                    continue
                except OSError as exc:
                    skipped.append((str(f), f"cannot be read ({exc.strerror or exc})"))
                    continue
                except (ValueError, KeyError, TypeError, AttributeError) as exc:
                    skipped.append((str(f), f"not a refbench run's metrics ({exc})"))
                    continue
                runs.append(run)
                found += 1
        if not found:
            skipped.append((str(root), "no run folders (metrics.json + predictions.jsonl) in "
                                       "it"))
    return runs, skipped


def all_runs(store_path: Path, run_dirs: Iterable[Path]) -> tuple[list[RunInfo],
                                                                  list[tuple[str, str]]]:
    """Store runs and folder runs, once per predictions file (the newest record wins)."""
    try:
        stored = store_runs(store_path)
        problems: list[tuple[str, str]] = []
    except RefbenchError as exc:
        stored, problems = [], [(str(store_path), exc.message)]
    extra, skipped = folder_runs(run_dirs)
    by_pred: dict[Path, RunInfo] = {}
    for run in sorted(stored, key=lambda r: r.store_id or 0):
        by_pred[run.predictions] = run
    for run in extra:
        by_pred.setdefault(run.predictions, run)
    readable = []
    for run in by_pred.values():
        why = unreadable(run.predictions)
        if why is None:
            readable.append(run)
        else:
            problems.append((str(run.predictions), f"run {run.rid} ({run.name}) is not shown: "
                                                   f"its predictions are unreadable ({why})"))
    return readable, problems + skipped


_READ: dict[tuple[str, int, int], str | None] = {}


def unreadable(predictions: Path) -> str | None:
    """Why a run's predictions file cannot be read (None: it can): every line must be a JSON
    object. Read once while the file is unchanged (its size and time), so that no page meets
    a file that is garbage half-way through; a run with such a file is listed as unreadable
    with this reason, never given to a page."""
    try:
        st = predictions.stat()
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    key = (str(predictions), st.st_size, st.st_mtime_ns)
    if key not in _READ:
        why = None
        try:
            for _ in read_jsonl(predictions):
                pass
        except RefbenchError as exc:
            why = f"line {exc.line}: {exc.message}" if exc.line is not None else exc.message
        except (OSError, UnicodeDecodeError) as exc:
            why = f"cannot be read ({exc})"
        _READ[key] = why
    return _READ[key]


_FACTS: dict[tuple[str, int, int, str], tuple[int, frozenset[int]] | None] = {}


def _data_facts(run: RunInfo) -> tuple[int, frozenset[int]] | None:
    """(instances in the run's data, the numbers of candidates they have), read once per file
    while it is unchanged; None when the data cannot be read."""
    if run.data is None or not run.data.is_file():
        return None
    st = run.data.stat()
    options = run.metrics.get("reader_options") or {}
    key = (str(run.data), st.st_size, st.st_mtime_ns, json.dumps(options, sort_keys=True))
    if key not in _FACTS:
        from refbench.tasks.choices import read_choices

        try:
            sizes = [len(i.candidates) for i in read_choices(
                run.data, task=find_task(run.task), options=options)]
            _FACTS[key] = (len(sizes), frozenset(sizes))
        except RefbenchError:
            _FACTS[key] = None
    return _FACTS[key]


def chance(run: RunInfo) -> float | None:
    """The accuracy of a uniform guess when every instance of the run's data has the same
    number of candidates (two for WSC, KnowRef, Winogender); None when they differ."""
    facts = _data_facts(run)
    if facts is None or len(facts[1]) != 1:
        return None
    (k,) = facts[1]
    return 1 / k if k else None


def _name(runs: Iterable[RunInfo], model: str) -> str:
    """A system's name: the one its latest run was given (``run --system``), else its spec."""
    latest = max(runs, key=lambda r: (r.created, r.rid), default=None)
    return latest.name if latest is not None else model


def _newer(run: RunInfo, old: RunInfo | None) -> bool:
    """Whether ``run`` stands for its system on a data file instead of ``old``: a complete
    run before a partial one (``--limit``), else the later one."""
    return old is None or (not run.is_partial, run.created, run.rid) \
        > (not old.is_partial, old.created, old.rid)


def systems_for(ds: Dataset, runs: Iterable[RunInfo]) -> list[System]:
    """The systems that ran on this dataset: one per model configuration, latest run per file
    (the run's data identity: :meth:`Dataset.holds`)."""
    groups: dict[tuple[str, str], dict[Path | str, RunInfo]] = {}
    for run in runs:
        if run.data is None or not ds.holds(run.task, run.data, run.data_sha256):
            continue
        target: Path | str = run.data_sha256 or run.data  # one run per data file: its content
        group = groups.setdefault((run.model, run.fingerprint), {})
        if _newer(run, group.get(target)):
            group[target] = run
    systems = [System(sid="m" + _hash(f"{model}|{fp}"), label=_name(g.values(), model),
                      model=model, fingerprint=fp,
                      runs=sorted(g.values(), key=lambda r: str(r.predictions)))
               for (model, fp), g in groups.items()]
    # two configurations under one name both keep it, told apart as every table tells them
    for s, label in zip(systems, names_apart([SystemIdentity(
            s.model, s.fingerprint, None if s.label == s.model else s.label)
            for s in systems]), strict=True):
        s.label = label
    return sorted(systems, key=lambda s: s.label)
