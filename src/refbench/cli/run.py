"""``refbench run``: a model on data sets, into run folders and the results store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from refbench.cli.benchmarks import ALL, BENCHMARK_DATA, several_benchmarks, warn_skipped
from refbench.cli.declared import (
    DeclaredCommand,
    checked_for_tasks,
    given,
    options_listing,
    task_owners,
)
from refbench.cli.ls import FOLDER_FILLS
from refbench.core.commands import (
    CONTEXT,
    OUT_DIR,
    PATH,
    POSITIVE,
    print_json,
    transactional,
)
from refbench.core.help_text import FilledOption, examples

#: ``{task_options}`` in a help text: every task's reader options (``--task-arg``).
READER_FILLS = {**FOLDER_FILLS, "task_options": lambda: options_listing(task_owners())}

RUN_EXAMPLE = examples(
    "refbench run --model knowledge-match --data kitmus-suite --out runs/km  # kitmus-suite: "
    "refbench kitmus generate",
    "refbench run --model embedding --data ../shared/data/altentities/books/test.json.gz "
    "--task-arg input_type=unshown_background --limit 200 --out runs/emb --json  # all 5,966: "
    "minutes",
    "refbench run --model embedding --data ../shared/data/winograd/wsc273.jsonl --out runs/s2 "
    "--shard 2/3",
    "refbench run --model first --data wsc273 --data gap:test --data knowref:test --out runs/many"
    "  # one folder each, one table (runs/many/summary.json); --data all: every release",
    "refbench run --model cross-encoder:models/ce-pretrain4 --data kitmus-suite --out runs/ce  "
    "# needs: a trained model (the refbench train example)",
    "refbench run --model embedding --data ../shared/data/winograd/wsc273.jsonl --out runs/d "
    "--engine dask --scheduler tcp://127.0.0.1:8786  # needs: a running Dask scheduler")


@click.command("run", cls=DeclaredCommand, declared={"task": task_owners()}, fills=READER_FILLS,
               context_settings=CONTEXT, epilog=RUN_EXAMPLE)
@click.option("--model", "spec", required=True, help="Model name[:argument] (refbench ls models).")
@click.option("--data", type=BENCHMARK_DATA, required=True, multiple=True, cls=FilledOption,
              fills=FOLDER_FILLS,
              help="A data file of any registered task, or a folder a task takes whole "
                   "({folder_tasks}: a KITMUS suite, a release folder). Repeat it to run "
                   "several benchmarks (each into --out/<name>/, one table); 'all': every "
                   "release in the data folder.")
@click.option("--task", default=None, help="Task (inferred from the file when omitted).")
@click.option("--split", default="test", show_default=True, help="Split, for a suite folder.")
@click.option("--limit", type=POSITIVE, default=None,
              help="Only the first N instances (of each data file, for a folder).")
@click.option("--out", type=OUT_DIR, required=True, help="Folder for predictions and metrics.")
@click.option("--system", default=None,
              help="Name in tables and the store (default: the model spec).")
@click.option("--store", type=PATH, default=None,
              help="Results store (default: $REFBENCH_STORE, else the project's "
                   ".refbench/results.sqlite).")
@click.option("--no-store", is_flag=True, help="Do not record the run or use the cache.")
@click.option("--model-arg", multiple=True, help="Model option key=value (repeatable); each "
              "model's options and their defaults: refbench ls models.")
@click.option("--task-arg", multiple=True, metavar="KEY=VALUE", cls=FilledOption,
              fills=READER_FILLS,
              help="An option of the task's reader (repeatable; recorded with the run): "
                   "{task_options}.")
@click.option("--skip-invalid", is_flag=True,
              help="Skip malformed instances (reported as a count and ids) instead of stopping.")
@click.option("--allow-transfer", is_flag=True,
              help="Run a trained model on data of another task than it was trained on "
                   "(refused otherwise).")
@click.option("--shard", default=None, metavar="I/N",
              help="Only the I-th of N parts (1-based, whole batches) of a data file's "
                   "instances; 'slurm': this job's place in a SLURM array. Merge the shards' "
                   "folders with refbench results merge.")
@click.option("--engine", type=click.Choice(["local", "dask"]), default="local",
              show_default=True,
              help="Where batches are predicted: this process, or a Dask cluster (--scheduler); "
                   "files and the store are written here either way.")
@click.option("--scheduler", default=None, help="Dask scheduler address (--engine dask).")
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as one JSON object.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@transactional
def run_cmd(spec: str, data: tuple[Path | str, ...], task: str | None, split: str,
            limit: int | None, out: Path, system: str | None, store: Path | None,
            no_store: bool, model_arg: tuple[str, ...], task_arg: tuple[str, ...],
            skip_invalid: bool, allow_transfer: bool, shard: str | None,
            engine: str, scheduler: str | None, as_json: bool, quiet: bool) -> None:
    """Run a model on a data set: predictions (answers JSONL with per-candidate scores), the
    task's metrics and provenance in --out, and a row in the results store. Interrupted runs
    resume from the store's prediction cache. A KITMUS suite folder runs every subtask of
    --split (one run folder each under --out) and prints the paper-style table. A malformed
    instance stops the run with an error naming it, unless --skip-invalid (then skipped
    instances are counted and listed). --shard runs one part of the instances (a shard is
    not recorded in the store; refbench results merge makes the shards one run);
    --engine dask spreads the batches over a Dask cluster. Several --data (or --data all) run
    one after the other, each into its own folder under --out as it would run alone, and
    print one table: each benchmark's headline figure with its interval, n of N and the
    chance level (also in --out/summary.json; refbench report --out renders it).
    """
    import contextlib

    from refbench.cli.declared import tasks_of
    from refbench.core.errors import UsageError
    from refbench.core.invalid import InvalidInstances
    from refbench.core.options import parse_key_values
    from refbench.models.base import check_model_options
    from refbench.public.running import run_all
    from refbench.runs.shards import parse_shard
    from refbench.runs.store import Store
    from refbench.tasks.lookup import all_tasks, get_task

    options = check_model_options(spec, parse_key_values(model_arg, flag="--model-arg"))
    the_task = get_task(task) if task else None
    part = parse_shard(shard)
    several = len(data) > 1 or ALL in data
    if several and part is not None:
        raise UsageError("--shard runs on one data file; give one --data")
    paths = [d for d in data if isinstance(d, Path)]
    if part is not None and paths[0].is_dir():
        raise UsageError("--shard runs on a data file; shard each data file of a folder "
                         "(SUITE/<variant>/subtask_<n>_ents/<split>.jsonl)")
    if scheduler is not None and engine != "dask":
        raise UsageError("--scheduler is for --engine dask")
    asked = given("task", task_arg)
    reader: dict[str, Any] = {}
    if asked:
        tasks = [the_task] if the_task else all_tasks() if several else tasks_of(paths, None)
        reader.update(checked_for_tasks(asked, tasks))
    from refbench.models.transfer import check_transfer  # a trained model on another task
    from refbench.tasks.scope import checked_split

    if not several and click.get_current_context().get_parameter_source("split") \
            is not click.core.ParameterSource.DEFAULT:  # --split given with a file: its own
        checked_split(tasks_of(paths, the_task)[0], paths[0], split)
    check_transfer(spec, lambda: tasks_of(paths, the_task), allow=allow_transfer,
                   say=lambda line: click.echo(line, err=True))
    names, paths, skip = several_benchmarks(data) if several else ([str(paths[0])], paths,
                                                                   None)
    st = None if no_store else Store(store)
    if st is not None:
        click.echo(st.describe(), err=True)
    for note in st.notes if st else ():
        click.echo(note, err=True)
    invalid = InvalidInstances() if skip_invalid else None
    if options.get("template") == "all":
        if several or engine != "local":
            raise UsageError("template=all runs one data file or folder locally")
        _run_templates(spec, options, paths[0], the_task, out, store=st, limit=limit,
                       system=system, split=split, reader=reader, shard=part,
                       invalid=invalid, as_json=as_json, quiet=quiet)
        return
    with contextlib.ExitStack() as stack:
        dask = None
        if engine == "dask":
            from refbench.runs.distributed import DaskEngine

            dask = stack.enter_context(DaskEngine(scheduler, spec, options))
        ran = run_all(spec, paths if several else paths[0], names=names, limit=limit,
                      system=system, out=out, store=st, task=the_task, split=split,
                      progress=not quiet and not as_json, reader_options=reader, shard=part,
                      skip_invalid=invalid, engine=dask, skip=skip, options=options)
    warn_skipped(invalid)
    show(ran, as_json=as_json, store=st, out=out)


def _run_templates(spec: str, options: dict[str, Any], data: Path, task: Any, out: Path, *,
                   store: Any, limit: int | None, system: str | None, split: str,
                   reader: dict[str, Any], shard: Any, invalid: Any, as_json: bool,
                   quiet: bool) -> None:
    """``--model-arg template=all``: one run per LLM template the data's task declares, each
    into ``out/<template>`` and recorded as its own system (``SPEC[template=NAME]``)."""
    from refbench.cli.declared import tasks_of
    from refbench.models.llm_templates import task_templates
    from refbench.public.running import run_all

    for name in task_templates(tasks_of([data], task)[0].name):
        if not as_json:
            click.echo(f"template {name}:", err=True)
        ran = run_all(spec, data, limit=limit, system=f"{system or spec}[template={name}]",
                      out=out / name, store=store, task=task, split=split,
                      progress=not quiet and not as_json, reader_options=reader, shard=shard,
                      skip_invalid=invalid, options={**options, "template": name})
        show(ran, as_json=as_json, store=store, out=out / name)
    warn_skipped(invalid)


def show(ran: Any, *, as_json: bool, store: Any, out: Path) -> None:
    """What ``refbench run`` prints of what the run path returned (a
    :class:`~refbench.runs.path.Ran`): a data file's metrics, a folder's table, or the
    several benchmarks' summary; as a table, or as JSON."""
    from refbench.reporting.summary import summary_text
    from refbench.reporting.text import run_text, suite_run_text

    if ran.summary is not None:
        if as_json:
            print_json(ran.summary)
            return
        click.echo(summary_text(ran.summary, "md"), nl=False)
        click.echo(f"runs and summary: {out}" + (f"; recorded in {store.path}" if store else ""))
        return
    bench = ran.benchmarks[0]
    if bench.folder_result is not None:
        if as_json:
            print_json(bench.result)
        else:
            click.echo(suite_run_text(bench.result))
        return
    metrics = bench.result
    for w in metrics.get("warnings", []):
        click.secho(f"WARNING: {w}", err=True, fg="yellow", bold=True)
    if as_json:
        print_json(metrics)
    else:
        click.echo(run_text({**metrics, **({"store": str(store.path)} if store else {})}))
