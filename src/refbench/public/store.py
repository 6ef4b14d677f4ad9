"""What ``refbench results`` does, as library functions over the results store: list and show
recorded runs (each with its seal's verdict), tag, remove, add run folders, verify records,
merge shards, copy another store, import lm-eval's samples. Each returns what it found or
made; none prints. ``note``: called once with the store's one-line description when it is
opened (the command line prints it on stderr)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from refbench.core.seal import Verdict, check_record, verify
from refbench.runs.store_rows import RunRow
from refbench.runs.verify import Checked

if TYPE_CHECKING:
    from refbench.runs.store import Store

Note = Callable[[str], None] | None


@contextmanager
def _opened(store: Path | None, note: Note, **how: Any) -> Iterator[Store]:
    from refbench.runs.store import Store

    with Store(store, **how) as st:
        if note is not None:
            note(st.describe())
        yield st


@dataclass(frozen=True)
class Listing:
    """Runs of a store, newest first: ``rows`` as :meth:`Store.runs` gives them (with the
    model's fingerprint, and ``data_coverage`` for a partial run), ``verdicts`` each run's
    seal verdict (by run id), ``path`` the store's file."""

    path: Path
    rows: list[RunRow]
    verdicts: dict[int, Verdict]


def list_runs(*, store: Path | None = None, limit: int | None = 50, task: str | None = None,
              tag: str | None = None, note: Note = None) -> Listing:
    """The newest ``limit`` runs (None or 0: all), of ``task`` and with ``tag`` when given.
    A record its seal refuses is listed with its verdict, not refused."""
    from refbench.core.result import coverage_of

    verdicts: dict[int, Verdict] = {}
    with _opened(store, note, readonly=True) as st:
        rows = st.runs(limit=limit or None, task=task, tag=tag)
        path = st.path
        for r in rows:  # a partial run says how much of its data it covers, and why
            full = st.get(r["run_id"])
            r["model_fingerprint"] = full["model_fingerprint"]  # get() reads every column
            cov = coverage_of(full["metrics"])
            if cov.is_partial:
                r["data_coverage"] = {"n": cov.n, "of": cov.of, "by": ", ".join(cov.by)}
            verdicts[r["run_id"]] = verify(full["metrics"])
    return Listing(path, rows, verdicts)


def show_run(run_id: int, *, store: Path | None = None,
             note: Note = None) -> tuple[RunRow, Verdict]:
    """One run's record (every column, its metrics as fractions) and its seal's verdict; a
    record the seal refuses is refused (:class:`~refbench.core.seal.RecordRefused`), as
    ``refbench report`` refuses it."""
    with _opened(store, note, readonly=True) as st:
        row = st.get(run_id)
        verdict = check_record(row["metrics"], path=f"{st.path}: run {run_id}")
    return row, verdict


def remove_runs(run_ids: Sequence[int], *, store: Path | None = None,
                note: Note = None) -> Path:
    """Forget runs (their folders and cached predictions stay); the store's file."""
    with _opened(store, note, create=False) as st:
        st.remove(list(run_ids))
    return st.path


def tag_runs(run_ids: Sequence[int], tags: Sequence[str], *, remove: bool = False,
             store: Path | None = None, note: Note = None) -> list[tuple[int, list[str]]]:
    """Add (or with ``remove``, take off) ``tags``; each run's tags afterwards."""
    with _opened(store, note, create=False) as st:
        return [(rid, st.tag(rid, list(tags), remove=remove)) for rid in run_ids]


def add_runs(run_dirs: Sequence[Path], *, store: Path | None = None,
             note: Note = None) -> list[tuple[int, dict[str, Any], Path]]:
    """Record runs from their folders (a suite folder: each subtask run); each new run's id,
    metrics and folder. Every record is checked before the store opens."""
    from refbench.runs.record import record_run, run_folders

    found = list(run_folders(list(run_dirs)))
    with _opened(store, note) as st:
        return [(record_run(st, metrics, folder), metrics, folder) for folder, metrics in found]


def verify_records(paths: Sequence[Path], *, rescore: bool = False) -> list[Checked]:
    """Every record in ``paths`` (run folders, folders of runs, ``metrics.json`` files) with
    its verdict: its seal, its intervals and with ``rescore`` its predictions scored again."""
    from refbench.runs.verify import verify_paths

    return verify_paths(list(paths), rescore=rescore)


def merge_runs(shard_dirs: Sequence[Path], *, out: Path, store: Path | None = None,
               record: bool = True, note: Note = None) -> tuple[dict[str, Any], Path | None]:
    """Merge the shards of one run into the run folder ``out``: its metrics, and the store's
    file it was recorded in (None with ``record=False``)."""
    from refbench.runs.shards import merge_shards
    from refbench.runs.store import Store

    st = Store(store) if record else None
    if st is not None and note is not None:
        note(st.describe())
    metrics = merge_shards(list(shard_dirs), out, store=st)
    return metrics, None if st is None else st.path


def import_store(source: Path, *, store: Path | None = None,
                 note: Note = None) -> tuple[int, int, Path]:
    """Copy another store's runs and cached predictions (runs already here are skipped): how
    many runs, how many predictions, and this store's file."""
    from refbench.runs.store import Store

    with Store(source, readonly=True) as src, _opened(store, note) as st:
        runs, preds = st.import_from(src)
    return runs, preds, st.path


def import_lm_eval(samples: Sequence[Path], *, data: Path, out: Path, split: str = "test",
                   allow_missing: bool = False, model: str | None = None,
                   model_args: str | None = None, store: Path | None = None,
                   record: bool = True, progress: bool = True,
                   note: Note = None) -> dict[str, Any]:
    """A refbench run (a data file) or suite run (a folder as ``data``) from lm-eval's
    per-sample logs; its metrics (a folder: its result)."""
    from refbench.core.errors import UsageError
    from refbench.core.inputs import check_input_file
    from refbench.runs.lm_eval.samples import import_lm_eval as import_file
    from refbench.runs.store import Store

    folder = data.is_dir()
    if not folder and allow_missing:
        raise UsageError("--allow-missing is for a folder as --data")
    for p in samples if folder else (*samples, data):
        check_input_file(p)
    st = Store(store) if record else None
    if st is not None and note is not None:
        note(st.describe())
    try:
        if folder:
            from refbench.runs.lm_eval.suite import import_lm_eval_folder

            return import_lm_eval_folder(samples, data, out, split=split, store=st,
                                         model=model, model_args=model_args,
                                         allow_missing=allow_missing, progress=progress)
        return import_file(samples, data, out, store=st, model=model, model_args=model_args)
    finally:
        if st is not None:
            st.close()
