"""``refbench serve``: the local web app over data files, suite folders and runs."""

from __future__ import annotations

from pathlib import Path

import click

from refbench.cli.ls import FOLDER_FILLS
from refbench.core.commands import CONTEXT, DATA, PATH
from refbench.core.help_text import FilledCommand, examples

EXAMPLE = (
    examples(
        "refbench serve kitmus-suite --runs runs/first runs/emb  # needs: a browser; serves until "
        "Ctrl-C",
        "refbench serve ../shared/data/tne/test.jsonl.gz --runs runs/tne-baselines --tne-model "
        "models/tne  # needs: a browser, and a model (refbench tne train --help)",
        "refbench serve ../shared/data --port 8080  # needs: a browser; serves until "
        "Ctrl-C"))


class _ServeCommand(FilledCommand):
    """``--runs A B C``: every word after ``--runs`` up to the next option is a run folder (the
    README's ``serve kitmus-suite --runs runs/first runs/emb``), as ``--runs A --runs B``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, spread_runs(args))


def spread_runs(args: list[str]) -> list[str]:
    """``--runs A B --port 1`` -> ``--runs A --runs B --port 1`` (nothing after ``--``)."""
    out: list[str] = []
    greedy = False
    for k, word in enumerate(args):
        if word == "--":
            return out + args[k:]
        if word.startswith("-"):
            greedy = word == "--runs" or word.startswith("--runs=")
            out.append(word)
        elif greedy and out and out[-1] != "--runs":
            out += ["--runs", word]
        else:
            out.append(word)
    return out


@click.command("serve", cls=_ServeCommand, fills=FOLDER_FILLS, context_settings=CONTEXT,
               epilog=EXAMPLE)
@click.argument("data", nargs=-1, type=DATA)
@click.option("--runs", "run_dirs", multiple=True, type=PATH,
              help="Run folders (refbench run --out) or TNE prediction files: every word up to "
                   "the next option (--runs runs/first runs/emb), or repeat --runs. "
                   "Every run in the store is shown as well.")
@click.option("--store", type=PATH, default=None,
              help="Results store (default: refbench's default store).")
@click.option("--index-dir", type=PATH, default=None,
              help="Where the search index is kept (default: web-index/ in refbench's cache "
                   "folder, $REFBENCH_CACHE_DIR or $XDG_CACHE_HOME/refbench).")
@click.option("--study", "studies", multiple=True, type=PATH,
              help="A study file (refbench study create) to mount under /study/; repeatable. "
                   "Its annotator and admin links are printed.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind; anything but loopback exposes the app to the network.")
@click.option("--trusted-host", "trusted_hosts", multiple=True, metavar="NAME",
              help="Another host name to answer to (the public name a reverse proxy forwards); "
                   "repeatable. Loopback names and --host are always answered, nothing else.")
@click.option("--expose-data", is_flag=True,
              help="With --study on a non-loopback --host, serve the data and runs too (by "
                   "default annotators reach only the study).")
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--no-warm", is_flag=True,
              help="Index datasets on first visit, not in the background from the start.")
def serve(data: tuple[Path, ...], run_dirs: tuple[Path, ...], store: Path | None,
          index_dir: Path | None, studies: tuple[Path, ...], host: str,
          trusted_hosts: tuple[str, ...], expose_data: bool, port: int, no_warm: bool,
          **demo_models: Path | None) -> None:
    """Explore datasets, inspect model outputs side by side, compare runs with paired
    significance tests, read the leaderboard, and try the tasks' demos, in a local web app.

    DATA: data files of any task refbench reads, folders a task takes whole ({folder_tasks}:
    a KITMUS suite, a release folder), or folders holding them. Each is indexed once (full-text
    search, slices) and the index is reused while the data is unchanged.
    """
    from refbench.web.serve import serve_app

    models = {task: given for task in _demo_tasks()
              if (given := demo_models.get(_param(task))) is not None}
    serve_app(list(data), run_dirs=list(run_dirs), store=store, index_dir=index_dir,
              demo_models=models, host=host, port=port, warm=not no_warm,
              studies=list(studies), trusted_hosts=list(trusted_hosts),
              expose_data=expose_data)


def _param(task: str) -> str:
    return f"demo_model_{task}"


def _demo_tasks() -> dict[str, str]:
    """Task name -> the option naming its demo's model folder (``--tne-model``)."""
    from refbench.tasks.lookup import tasks_with

    return {t.name: t.demo.model_option for t in tasks_with("demo")
            if t.demo is not None and t.demo.model_option}


def add_demo_options() -> None:
    """One ``--<model_option>`` per task demo that takes a model (the tasks say which); once
    (the first time ``serve`` is looked up, so other commands load no task for it)."""
    from refbench.tasks.lookup import tasks_with

    if getattr(serve, "_demo_options", False):
        return
    serve._demo_options = True  # type: ignore[attr-defined]
    for t in tasks_with("demo"):
        if t.demo is not None and t.demo.model_option:
            serve.params.append(click.Option([f"--{t.demo.model_option}", _param(t.name)],
                                             type=PATH, default=None, help=t.demo.model_help))
