"""``refbench.run`` and ``refbench.evaluate``: what ``refbench run`` and
``refbench evaluate`` do, from Python, returning
:class:`~refbench.public.results.Result` objects. Errors are raised (``RefbenchError``, the
line the command line prints), never printed."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.invalid import InvalidInstances
from refbench.core.result import Result as TypedResult
from refbench.models.base import ChoiceModel
from refbench.public.dataset import data_path, run_data, task_of
from refbench.public.results import Result, instance_rows
from refbench.tasks.base import Task

if TYPE_CHECKING:
    from refbench.runs.path import Ran


class _Default:
    def __repr__(self) -> str:
        return "<the default store>"


#: ``store=DEFAULT_STORE``: the results store ``refbench run`` records in.
DEFAULT_STORE: Any = _Default()


@contextlib.contextmanager
def _store(store: Any) -> Iterator[Any]:
    from refbench.runs.store import Store

    if store is None or isinstance(store, Store):  # none, or one the caller keeps open
        yield store
        return
    st = Store(None if store is DEFAULT_STORE else Path(store))
    try:
        yield st
    finally:
        st.close()


def _progress() -> bool:
    import sys

    return sys.stderr is not None


def run(model: Any, data: str | Path | Sequence[str | Path], *, limit: int | None = None,
        system: str | None = None, out: str | Path | None = None, store: Any = DEFAULT_STORE,
        task: str | None = None, split: str | None = None, progress: bool = True,
        allow_transfer: bool = False, task_args: Mapping[str, Any] | None = None,
        **model_options: Any) -> Result | list[Result]:
    """Run ``model`` (a spec: ``"first"``, ``"embedding"``, ``"cross-encoder:DIR"``) on
    ``data`` (a release name such as ``"wsc273"`` or ``"gap:test"``, or a path) the way
    ``refbench run`` does: the same predictions and figures, the same files in ``out`` when it
    is given (none when it is not), recorded in the results store (``store=None``: nothing
    recorded, no prediction cache; a path: that store). ``model_options`` are the model's
    options (``refbench ls models``). A list of data runs each into ``out/<name>/`` and writes
    ``out/summary.json`` (``refbench run --data A --data B``); a list, or a folder run whole
    (a KITMUS suite, a WinoBias release), gives a list of Results, one per data file.
    ``split``: a release's split (``run("first", NAME, split="dev")``), the split of a folder
    run whole (default: test), or, with a data file, the file's own split (else an error).
    ``allow_transfer``: run a trained model on data of another task than its training's.
    ``task_args``: the task's reader options, as ``--task-arg`` (``{"ablate": "entity"}``: a
    KITMUS knowledge ablation), checked against the options the data's task declares.
    What ``refbench run`` prints as ``WARNING:`` lines (a run's ``warnings``) are Python
    warnings (:class:`~refbench.core.errors.RefbenchWarning`), as :func:`evaluate` gives them.

    ``model`` may also be an object of this session (:mod:`refbench.models.user`): a
    ``ChoiceModel`` instance or subclass, a function of an instance (``batch=True``: of a list
    of instances) returning a candidate index or one score per candidate, or a log-likelihood
    adapter (``refbench.models.loglik``, ``refbench.models.from_transformers``); then
    ``model_options`` are ``version=`` (makes its predictions cacheable), ``batch=``,
    ``batch_size=``, ``timeout=`` (seconds per instance) and a subclass's own options."""
    from refbench.public.checks import run_args, warn_all

    run_args(model, data, limit=limit, system=system, out=out, task=task, split=split,
             task_args=task_args)
    ran = run_all(model, data, limit=limit, system=system, out=out, store=store, task=task,
                  split=split, progress=progress, options=model_options,
                  allow_transfer=allow_transfer, task_args=task_args)
    # what `refbench run` prints as WARNING: lines, as Python warnings (RefbenchWarning)
    warn_all(w for b in ran.benchmarks for f in b.files for w in f.metrics.get("warnings", ()))
    return _results(ran, data, out=None if out is None else Path(out))


def run_all(model: Any, data: str | Path | Sequence[str | Path], *,
            limit: int | None = None, system: str | None = None,
            out: str | Path | None = None, store: Any = DEFAULT_STORE,
            task: str | Task | None = None, split: str | None = None, progress: bool = True,
            reader_options: dict[str, Any] | None = None, shard: tuple[int, int] | None = None,
            skip_invalid: InvalidInstances | None = None, engine: Any = None,
            skip: Any = None, names: Sequence[str] | None = None,
            options: dict[str, Any] | None = None,
            allow_transfer: bool | None = None,
            task_args: Mapping[str, Any] | None = None) -> Ran:
    """:func:`run`, returning everything the run path ran (:class:`~refbench.runs.path.Ran`:
    each benchmark's data files' runs, a folder's combined result, several benchmarks'
    summary): what ``refbench run`` prints. ``options``: the model's options. The command
    line's own settings are keyword-only too: ``reader_options`` (``--task-arg``, added to a
    trained model's), ``shard`` (I, N), ``skip_invalid`` (collects the malformed instances
    skipped), ``engine`` (a :class:`~refbench.runs.distributed.DaskEngine`),
    ``skip(bench, error)`` (``--data all``) and ``names`` (each data as it was given, for the
    summary's rows); ``store``: also an open :class:`~refbench.runs.store.Store`.
    ``allow_transfer``: whether a trained model may run on another task's data (a Python
    warning when it does); None: not checked here (the command line checks it itself).
    ``task_args``: reader options not yet checked (:func:`run`'s), checked here against the
    data's tasks (the command line checks its ``--task-arg`` itself)."""
    from refbench.models.base import check_model_options, trained_reader_options
    from refbench.models.transfer import check_transfer
    from refbench.runs.multi import Benchmark, benchmarks
    from refbench.runs.path import run as run_path
    from refbench.runs.record import RunSettings

    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 1):
        raise UsageError(f"limit={limit!r}: expected a positive whole number")
    # a model object of the user's session (a ChoiceModel, a function, a log-likelihood
    # adapter: refbench.models.user) runs as it is, under its name
    built: ChoiceModel | None = None
    options = dict(options or {})
    if not isinstance(model, str):
        from refbench.models.user import user_model

        built, options = user_model(model, system=system, **options), {}
    spec = built.name if built is not None else str(model)
    checked = {} if built is not None else check_model_options(spec, options)
    several = not isinstance(data, str | Path)
    given = [str(d) for d in data] if not isinstance(data, str | Path) else [str(data)]
    paths = [run_data(d, split, task) if isinstance(d, str) else Path(d) for d in
             (list(data) if not isinstance(data, str | Path) else [data])]
    if built is None and allow_transfer is not None:
        check_transfer(spec, lambda: [task_of(task, p) for p in paths], allow=allow_transfer,
                       say=lambda line: warnings.warn(line, stacklevel=3))
    # as `refbench run`: a trained cross-encoder reads a data file the way it was trained
    reader = {} if several or paths[0].is_dir() or built is not None \
        else trained_reader_options(spec)
    reader.update(reader_options or {})
    if task_args:
        reader.update(_checked_task_args(dict(task_args), task, paths))
    settings = RunSettings(model=spec, model_options=checked, reader_options=reader,
                           limit=limit, system=system, split=split or "test", shard=shard)
    the_task = None if task is None else task_of(task, paths[0])
    labels = list(names) if names is not None else given
    benches = benchmarks(labels, paths) if several else [Benchmark(labels[0], paths[0], "")]
    with _store(store) as st:
        return run_path(settings, benches, None if out is None else Path(out),
                        several=several, task=the_task, store=st,
                        progress=progress and _progress(), model=built,
                        on_invalid=skip_invalid, engine=engine, skip=skip)


def _checked_task_args(given: dict[str, Any], task: str | Task | None, paths: list[Path]
                       ) -> dict[str, Any]:
    """Reader options typed and checked against the tasks of the data (a folder's: the task
    that takes it whole): each key against the tasks that declare it; an unknown key is one
    usage error naming the options there are."""
    from refbench.tasks.lookup import folder_task_of
    from refbench.tasks.scope import checked_option

    tasks: list[Task] = []
    for p in paths:
        one = task_of(task, p) if task is not None or not p.is_dir() else folder_task_of(p)
        if one not in tasks:
            tasks.append(one)
    out: dict[str, Any] = {}
    for key, value in given.items():
        out.update(checked_option({key: value}, tasks, where="the data"))
    return out


def _results(ran: Ran, data: str | Path | Sequence[str | Path], *, out: Path | None
             ) -> Result | list[Result]:
    """The Python API's Results of a run, with their instances' rows, from the run in memory
    (each folder's runs in their folders' order); ``out_dir``: each run's folder, when kept."""
    several = not isinstance(data, str | Path)
    found = []
    for b in ran.benchmarks:
        for f in sorted(b.files, key=lambda f: f.place):
            out_dir = None if out is None else \
                (out / b.bench.folder if several else out) / f.place
            rows = instance_rows(f.task, f.instances, [o.answer for o in f.outputs],
                                 [list(o.scores) for o in f.outputs])
            found.append(Result.of(f.recorded.result, rows=rows, out_dir=out_dir))
    if not several and not ran.benchmarks[0].bench.path.is_dir():
        return found[0]
    return found


def evaluate(predictions: str | Path | Result, gold: str | Path, *, task: str | None = None,
             split: str | None = None) -> Result:
    """Score ``predictions`` (a run folder, its ``predictions.jsonl``, a task's own
    prediction format, or a Result that kept its run folder) against ``gold`` (a release name
    or a path) as ``refbench evaluate`` does. ``task``: inferred from the gold when not
    given."""
    from refbench.public.checks import evaluate_args, warn_all
    from refbench.public.scoring import scores
    from refbench.releases.cache import reference_of
    from refbench.tasks.answers import read_choice_answers

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
    result = scores(the_task, gold_path, [pred], name_of=reference_of)
    warn_all(result.get("warnings", ()))
    rows: list[dict[str, Any]] = []
    if not gold_path.is_dir() and the_task.documents is None:
        instances = the_task.gold_instances(gold_path)
        answers = read_choice_answers(pred, instances)
        rows = instance_rows(the_task, instances, answers.answers)
    return Result.of(TypedResult.from_json(result), rows=rows)
