"""Starting the app: serve at once on loopback unless told otherwise, while the data is
indexed and every system's predictions loaded in the background (:mod:`refbench.web.warm`).

On a non-loopback ``--host`` with ``--study``, only the studies are served (annotators must not
reach every run in the store) unless ``--expose-data`` is given. Either way the app answers
only to the host names it was started for (:func:`refbench.web.guard.allowed_hosts`), and the
access log shows ``<token>`` where a study link holds one."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.web.catalog import Catalog, ServeConfig
from refbench.web.guard import allowed_hosts, is_loopback, url_host


def make_config(data: list[Path], *, run_dirs: list[Path], store: Path | None,
                index_dir: Path | None, demo_models: dict[str, Path] | None = None
                ) -> ServeConfig:
    """The app's configuration; ``demo_models``: a model folder per task with a demo, each
    checked by its demo (:meth:`~refbench.tasks.capabilities.Demo.check_model`)."""
    from refbench.runs.store import default_store_path
    from refbench.tasks.lookup import get_task

    for task, model in (demo_models or {}).items():
        demo = get_task(task).demo
        if demo is None:
            raise UsageError(f"task {task!r} has no demo page to give a model to")
        demo.check_model(model)
    check_run_dirs(run_dirs)
    config = ServeConfig(data=data, run_dirs=run_dirs, store=store or default_store_path(),
                         index_dir=index_dir, demo_models=dict(demo_models or {}))
    check_index_dir(config.index_folder, given=index_dir is not None)
    return config


def check_run_dirs(run_dirs: list[Path]) -> None:
    """Refuse a ``--runs`` path that is not there (a typo would otherwise serve without the
    runs the user asked for, and without a word)."""
    missing = [str(p) for p in run_dirs if not p.exists()]
    if missing:
        raise UsageError(f"--runs: no such file or folder: {', '.join(missing)}")


def check_index_dir(folder: Path, *, given: bool = True) -> None:
    """Make the index folder, or refuse one that cannot hold the index (a file, a folder that
    cannot be made) as one line before the server starts; then remove what a killed server
    left there (:func:`refbench.web.index_health.clean_stale`)."""
    from refbench.web.index_health import clean_stale

    what = f"--index-dir {folder}" if given else f"the index folder {folder}"
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{what}: is a file, expected a folder to keep the search index in")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{what}: cannot make the folder ({exc.strerror or exc})") from None
    for removed in clean_stale(folder):
        print(f"removed {removed} (left by an indexing that was stopped)", file=sys.stderr)


def prepare(catalog: Catalog, *, progress: bool = True) -> None:
    """Build or check every dataset's index, and load every system's predictions."""
    from refbench.web.index import default_workers
    from refbench.web.predictions import ensure_system

    for ds in list(catalog.datasets.values()):
        try:
            catalog.index.ensure(ds, progress=progress, workers=default_workers())
        except RefbenchError as exc:  # a file its reader rejects: shown as not shown, not fatal
            del catalog.datasets[ds.key]
            catalog.skipped.append((str(ds.path), exc.render()))
            print(f"not shown: {exc.render()}", file=sys.stderr)
            continue
        for system in catalog.systems(ds):
            ensure_system(catalog.index, ds, system)


def study_blueprints(studies: list[Path]) -> list[tuple[Any, str]]:
    """Human studies (``refbench study create``) mounted on the app: ``/study/`` for one,
    ``/study/<file stem>/`` for several."""
    from refbench.web.study.blueprint import make_study_blueprint

    stems = [p.stem for p in studies]
    if len(set(stems)) != len(stems):
        raise UsageError("--study files need different names")
    return [(make_study_blueprint(p, name=f"study_{k}"),
             "/study" if len(studies) == 1 else f"/study/{p.stem}")
            for k, p in enumerate(studies)]


def serve_app(data: list[Path], *, run_dirs: list[Path], store: Path | None,
              index_dir: Path | None, host: str, port: int,
              demo_models: dict[str, Path] | None = None,
              warm: bool = True, studies: list[Path] | None = None,
              trusted_hosts: list[str] | None = None, expose_data: bool = False) -> None:
    from werkzeug.serving import run_simple

    from refbench.web.guard import RedactingHandler

    hosts = allowed_hosts(host, trusted_hosts or [])
    mounted = study_blueprints(studies or [])
    shown = url_host(host, trusted_hosts or [])
    if studies_only(host, bool(studies), expose_data):
        from refbench.web.study.server import studies_app

        app = studies_app(mounted, hosts=hosts)
        print(f"refbench serve: {host} is not loopback, so only the studies are served (add "
              "--expose-data to serve the data and runs too)", file=sys.stderr)
    else:
        app = data_app(data, run_dirs=run_dirs, store=store, index_dir=index_dir,
                       demo_models=demo_models, warm=warm, mounted=mounted, hosts=hosts)
    try:  # from here on, however it stops, the background indexing stops with it
        _announce(app, host=host, port=port, shown=shown, trusted=bool(trusted_hosts),
                  studies=list(zip(studies or [], mounted, strict=True)))
        with noticed_interrupt() as pressed:
            run_simple(host, port, app, threaded=True, use_reloader=False,
                       use_debugger=False, request_handler=RedactingHandler)
    finally:
        stop_indexing(app)
    if pressed():  # werkzeug ends its loop quietly on Ctrl-C: say so, and exit 130
        raise KeyboardInterrupt


def _announce(app: Any, *, host: str, port: int, shown: str, trusted: bool,
              studies: list[tuple[Path, tuple[Any, str]]]) -> None:
    """What ``serve`` prints before it answers: where, a warning off loopback, study links."""
    if "CATALOG" in app.config:
        if not is_loopback(host):
            print(f"warning: serving on {host}: anyone who can reach this machine on port "
                  f"{port} can read the data and runs shown", file=sys.stderr)
        print(f"open http://{shown}:{port}/  (Ctrl-C to stop)", file=sys.stderr)
    if host in ("0.0.0.0", "::") and not trusted:
        print("note: only loopback host names are answered; give --trusted-host NAME for the "
              "name or address clients use", file=sys.stderr)
    if studies:
        from refbench.web.study.server import links

        for study, (_, prefix) in studies:
            print(f"study {study}:", file=sys.stderr)
            for name, url in links(study, f"http://{shown}:{port}{prefix}"):
                print(f"  {name}: {url}", file=sys.stderr)


@contextlib.contextmanager
def noticed_interrupt() -> Iterator[Callable[[], bool]]:
    """Whether Ctrl-C was pressed inside the block (werkzeug's server loop takes the
    ``KeyboardInterrupt`` and returns as if it had been asked to stop). Only in the main thread,
    and only where Ctrl-C is not ignored (a command started in the background keeps ignoring
    it)."""
    seen: list[int] = []
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield lambda: False
        return

    def on_interrupt(signum: int, frame: FrameType | None) -> None:
        seen.append(signum)
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield lambda: bool(seen)
    finally:
        signal.signal(signal.SIGINT, old)


def stop_indexing(app: Any) -> None:
    """Stop the background indexing (the index being built is not kept: nothing half-written
    stays in the index folder) and say what an interruption kept."""
    from refbench.core.interrupt import note_kept
    from refbench.web.index_health import remove_own_temporaries

    warmer = app.config.get("WARMER")
    catalog = app.config.get("CATALOG")
    if catalog is None:
        note_kept("the server stopped (nothing was written)")
        return
    folder = catalog.config.index_folder
    label = warmer.stop() if warmer is not None else None
    # an index a page was building (--no-warm) is not finished either: not kept
    remove_own_temporaries(folder)
    if label is not None:
        note_kept(f"the server stopped while indexing {label}: that index was not kept (the "
                  f"next start builds it); the finished ones are kept in {folder}")
    else:
        note_kept(f"the server stopped; its indexes are kept in {folder}")


def studies_only(host: str, has_studies: bool, expose_data: bool) -> bool:
    """Whether ``serve`` mounts only its studies: annotators on the network must not reach
    every run in the store, unless the data is exposed on purpose."""
    return has_studies and not is_loopback(host) and not expose_data


def data_app(data: list[Path], *, run_dirs: list[Path], store: Path | None,
             index_dir: Path | None, warm: bool, mounted: list[tuple[Any, str]],
             hosts: frozenset[str], demo_models: dict[str, Path] | None = None) -> Any:
    """The full app (datasets, runs, leaderboard, demo) with the studies mounted on it."""
    from refbench.web.app import create_app

    config = make_config(data, run_dirs=run_dirs, store=store, index_dir=index_dir,
                         demo_models=demo_models)
    catalog = Catalog(config)
    for path, why in catalog.skipped:
        print(f"not shown: {path}: {why}", file=sys.stderr)  # at start: files, not data
    print(f"refbench serve: {len(catalog.datasets)} dataset(s), {len(catalog.runs())} run(s)",
          file=sys.stderr)
    app = create_app(config, catalog=catalog, extra_blueprints=mounted, hosts=hosts)
    if warm:  # indexed in the background: the app answers at once (refbench.web.warm)
        from refbench.web.index import default_workers
        from refbench.web.warm import Warmer

        app.config["WARMER"] = Warmer(catalog, workers=default_workers()).start()
        print("indexing in the background (progress on the home page)", file=sys.stderr)
    return app
