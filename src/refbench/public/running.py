"""``refbench.run`` and ``refbench.evaluate``: what ``refbench run`` and
``refbench evaluate`` do, from Python, returning
:class:`~refbench.public.results.Result` objects. Errors are raised (``RefbenchError``, the
line the command line prints), never printed."""

from __future__ import annotations

import contextlib
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.result import Result as TypedResult
from refbench.public.dataset import data_path, run_data, task_of
from refbench.public.results import Result, instance_rows, run_rows
from refbench.tasks.base import Task


class _Default:
    def __repr__(self) -> str:
        return "<the default store>"


#: ``store=DEFAULT_STORE``: the results store ``refbench run`` records in.
DEFAULT_STORE: Any = _Default()


@contextlib.contextmanager
def _folder(out: str | Path | None) -> Iterator[Path]:
    """``out``, or a temporary folder removed afterwards (the Result keeps what it needs)."""
    if out is not None:
        yield Path(out)
        return
    with tempfile.TemporaryDirectory(prefix="refbench-run-") as tmp:
        yield Path(tmp)


@contextlib.contextmanager
def _store(store: Any) -> Iterator[Any]:
    from refbench.runs.store import Store

    if store is None:
        yield None
        return
    st = Store(None if store is DEFAULT_STORE else Path(store))
    try:
        yield st
    finally:
        st.close()


def _progress() -> bool:
    import sys

    return sys.stderr is not None


def read_run(folder: Path, task: Task, *, keep: bool) -> Result:
    """The Result of a run folder, with its instances' rows."""
    from refbench.tasks.choices import read_choices

    typed = TypedResult.read(folder)
    reading = typed.details.get("reader_options") or {}
    data = Path(typed.data.path)
    instances = list(read_choices(data, task=task, options=dict(reading)))
    rows = run_rows(task, instances, folder / "predictions.jsonl")
    return Result.of(typed, rows=rows, out_dir=folder if keep else None)


def run(model: Any, data: str | Path | Sequence[str | Path], *, limit: int | None = None,
        system: str | None = None, out: str | Path | None = None, store: Any = DEFAULT_STORE,
        task: str | None = None, split: str | None = None, progress: bool = True,
        allow_transfer: bool = False, **model_options: Any) -> Result | list[Result]:
    """Run ``model`` (a spec: ``"first"``, ``"embedding"``, ``"cross-encoder:DIR"``) on
    ``data`` (a release name such as ``"wsc273"`` or ``"gap:test"``, or a path) the way
    ``refbench run`` does: the same predictions and figures, the same files in ``out`` when it
    is given, recorded in the results store (``store=None``: nothing recorded, no prediction
    cache; a path: that store). ``model_options`` are the model's options
    (``refbench ls models``). A list of data runs each into ``out/<name>/`` and writes
    ``out/summary.json`` (``refbench run --data A --data B``); a list, or a folder run whole
    (a KITMUS suite, a WinoBias release), gives a list of Results, one per data file.
    ``split``: a release's split (``run("first", NAME, split="dev")``), the split of a folder
    run whole (default: test), or, with a data file, the file's own split (else an error).
    ``allow_transfer``: run a trained model on data of another task than its training's.

    ``model`` may also be an object of this session (:mod:`refbench.models.user`): a
    ``ChoiceModel`` instance or subclass, a function of an instance (``batch=True``: of a list
    of instances) returning a candidate index or one score per candidate, or a log-likelihood
    adapter (``refbench.models.loglik``, ``refbench.models.from_transformers``); then
    ``model_options`` are ``version=`` (makes its predictions cacheable), ``batch=``,
    ``batch_size=``, ``timeout=`` (seconds per instance) and a subclass's own options."""
    from refbench.models.base import check_model_options, trained_reader_options
    from refbench.models.transfer import check_transfer
    from refbench.public.checks import run_args
    from refbench.runs.multi import benchmarks, run_benchmarks, run_one
    from refbench.runs.record import RunSettings

    run_args(model, data, limit=limit, system=system, out=out, task=task, split=split)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 1):
        raise UsageError(f"limit={limit!r}: expected a positive whole number")
    # --- a model object of the user's session (issue 51): built here, run as a prebuilt model
    prebuilt = None
    if not isinstance(model, str):
        from refbench.models.user import user_model

        prebuilt = user_model(model, system=system, **model_options)
        model, model_options = prebuilt.name, {}
    # --- end of the user-model block
    options = {} if prebuilt is not None else check_model_options(model, model_options)
    several = not isinstance(data, str | Path)
    names = [str(d) for d in data] if not isinstance(data, str | Path) else [str(data)]
    paths = [run_data(d, split, task) for d in names]
    if prebuilt is None:
        check_transfer(model, lambda: [task_of(task, p) for p in paths], allow=allow_transfer,
                       say=lambda line: warnings.warn(line, stacklevel=2))
    # as `refbench run`: a trained cross-encoder reads a data file the way it was trained
    reader = {} if several or paths[0].is_dir() or prebuilt is not None \
        else trained_reader_options(model)
    settings = RunSettings(model=model, model_options=options, reader_options=reader,
                           limit=limit, system=system, split=split or "test")
    the_task = None if task is None else task_of(task, paths[0])
    show = progress and _progress()
    with _folder(out) as folder, _store(store) as st:
        if several:
            benches = benchmarks(names, paths)
            run_benchmarks(settings, benches, folder, task=the_task, store=st, progress=show,
                           model=prebuilt)
            return [r for b in benches for r in _results(folder / b.folder, the_task,
                                                         keep=out is not None)]
        run_one(settings, paths[0], folder, task=the_task, store=st, progress=show,
                model=prebuilt)
        found = _results(folder, the_task, keep=out is not None)
        return found if paths[0].is_dir() else found[0]


def _results(folder: Path, task: Task | None, *, keep: bool) -> list[Result]:
    from refbench.runs.record import run_folders
    from refbench.tasks.lookup import get_task

    out = []
    for sub, metrics in run_folders([folder]):
        out.append(read_run(sub, task or get_task(str(metrics["task"])), keep=keep))
    return out


def evaluate(predictions: str | Path | Result, gold: str | Path, *, task: str | None = None,
             split: str | None = None) -> Result:
    """Score ``predictions`` (a run folder, its ``predictions.jsonl``, a task's own
    prediction format, or a Result that kept its run folder) against ``gold`` (a release name
    or a path) as ``refbench evaluate`` does. ``task``: inferred from the gold when not
    given."""
    from refbench.public.checks import evaluate_args, warn_all
    from refbench.releases.cache import reference_of
    from refbench.tasks.answers import read_choice_answers
    from refbench.tasks.scoring import evaluate_predictions

    evaluate_args(predictions, gold, task=task, split=split)
    gold_path = data_path(gold, split=split)
    the_task = task_of(task, gold_path)
    if isinstance(predictions, Result):
        if predictions.out_dir is None:
            raise UsageError("this Result kept no run folder (run it with out=...)")
        predictions = predictions.out_dir
    pred = Path(predictions)
    if not pred.exists():
        raise RefbenchError("no such file or folder", path=pred)
    result = evaluate_predictions(the_task, gold_path, [pred], name_of=reference_of)
    warn_all(result.get("warnings", ()))
    rows: list[dict[str, Any]] = []
    if not gold_path.is_dir() and the_task.documents is None:
        instances = the_task.gold_instances(gold_path)
        answers = read_choice_answers(pred, instances)
        rows = instance_rows(the_task, instances, answers.answers)
    return Result.of(TypedResult.from_json(result), rows=rows)
