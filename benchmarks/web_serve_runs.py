"""The runs the web benchmark serves: cheap baselines over every release in a data folder.

Four position/random baselines (first, random, last, nearest) over every folder dataset (the
KITMUS release: one run per subtask file), and ``first`` and ``random`` over every other
choice data file: about a hundred runs over ``../shared/data``, recorded into one store.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

FOLDER_MODELS = ("first", "random", "last", "nearest")
FILE_MODELS = ("first", "random")


def make_runs(data: Path, work: Path) -> int:
    """Record the runs into ``work/results.sqlite`` (their folders under ``work/runs``) unless
    the store is already there; the number of runs in the store."""
    from refbench.core.errors import RefbenchError
    from refbench.runs.path import run_suite
    from refbench.runs.runner import run_model
    from refbench.runs.store import Store
    from refbench.web.datasets import discover

    store_path = work / "results.sqlite"
    if not store_path.exists():
        work.mkdir(parents=True, exist_ok=True)
        store = Store(work / "results.sqlite.part")
        for k, ds in enumerate(discover([data]).datasets):
            if ds.task.documents is not None:
                continue  # prediction files, not model runs
            folder = ds.path.is_dir()
            for model in FOLDER_MODELS if folder else FILE_MODELS:
                out = work / "runs" / f"{k:02d}-{ds.key}" / model
                try:
                    with contextlib.redirect_stdout(io.StringIO()):
                        if folder:
                            run_suite(model, ds.path, out, store=store, progress=False)
                        else:
                            run_model(model, ds.path, out, store=store, progress=False)
                except RefbenchError as exc:  # a file no baseline can run (no candidates)
                    print(f"skipped {ds.label} {model}: {exc.render()}")
        store.close()
        (work / "results.sqlite.part").rename(store_path)
    from refbench.runs.store import Store

    with Store(store_path, readonly=True) as st:
        return len(st.runs(limit=None))
