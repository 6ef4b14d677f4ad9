"""Starting the app: index the data (with progress), load every system's predictions, then
serve on loopback unless told otherwise."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.web.catalog import Catalog, ServeConfig

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def make_config(data: list[Path], *, run_dirs: list[Path], store: Path | None,
                index_dir: Path | None, tne_model: Path | None) -> ServeConfig:
    from refbench.runs.store import default_store_path

    if tne_model is not None and not tne_model.is_dir():
        raise UsageError(f"--tne-model {tne_model}: not a folder (train one with refbench tne "
                         "train)")
    return ServeConfig(data=data, run_dirs=run_dirs, store=store or default_store_path(),
                       index_dir=index_dir, tne_model=tne_model)


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
    from refbench.studies.web import make_study_blueprint

    stems = [p.stem for p in studies]
    if len(set(stems)) != len(stems):
        raise UsageError("--study files need different names")
    return [(make_study_blueprint(p, name=f"study_{k}"),
             "/study" if len(studies) == 1 else f"/study/{p.stem}")
            for k, p in enumerate(studies)]


def serve_app(data: list[Path], *, run_dirs: list[Path], store: Path | None,
              index_dir: Path | None, tne_model: Path | None, host: str, port: int,
              warm: bool = True, studies: list[Path] | None = None) -> None:
    from werkzeug.serving import run_simple

    from refbench.web.app import create_app

    config = make_config(data, run_dirs=run_dirs, store=store, index_dir=index_dir,
                         tne_model=tne_model)
    catalog = Catalog(config)
    for path, why in catalog.skipped:
        print(f"not shown: {path}: {why}", file=sys.stderr)  # at start: files, not data
    if warm:
        prepare(catalog)
    mounted = study_blueprints(studies or [])
    app = create_app(config, catalog=catalog, extra_blueprints=mounted)
    if host not in LOOPBACK:
        print(f"warning: serving on {host}: anyone who can reach this machine on port {port} "
              "can read the data and runs shown", file=sys.stderr)
    shown = f"[{host}]" if ":" in host else host
    print(f"refbench serve: {len(catalog.datasets)} dataset(s), {len(catalog.runs())} run(s); "
          f"open http://{shown}:{port}/  (Ctrl-C to stop)", file=sys.stderr)
    if studies:
        from refbench.studies.server import links

        for study, (_, prefix) in zip(studies, mounted, strict=True):
            print(f"study {study}:", file=sys.stderr)
            for name, url in links(study, f"http://{shown}:{port}{prefix}"):
                print(f"  {name}: {url}", file=sys.stderr)
    run_simple(host, port, app, threaded=True, use_reloader=False, use_debugger=False)
