"""``refbench results``: the runs recorded in the project's results store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from refbench.cli.ls import FOLDER_FILLS
from refbench.core.commands import (
    CONTEXT,
    COUNT,
    DATA,
    OUT_DIR,
    PATH,
    POSITIVE,
    print_json,
    transactional,
)
from refbench.core.help_text import FilledOption, examples
from refbench.core.seal import VERIFIED

STORE_HELP = ("Results store (default: $REFBENCH_STORE, else the project's "
              ".refbench/results.sqlite).")


@click.group("results", context_settings=CONTEXT, epilog=(
    examples(
        "refbench results ls",
        "refbench results show 1 --json",
        "refbench results tag 1 --tag paper",
        "refbench results ls --tag paper")))
def results() -> None:
    """Runs recorded in the results store: list, show, tag, remove, add, verify, merge,
    import."""


@results.command("ls", context_settings=CONTEXT, epilog=(
    examples(
        "refbench results ls --limit 5",
        "refbench results ls --task gap --tag paper")))
@click.option("--store", type=PATH, default=None, help=STORE_HELP)
@click.option("--limit", type=COUNT, default=50, show_default=True,
              help="Newest N runs (0: all).")
@click.option("--task", default=None, help="Only runs of this task.")
@click.option("--tag", default=None, help="Only runs with this tag.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def results_ls(store: Path | None, limit: int, task: str | None, tag: str | None,
               as_json: bool) -> None:
    """List recorded runs, newest first: id, creation time (UTC), system, task, data, split,
    instances, accuracy (a fraction), output folder and tags. Each record's seal is checked:
    below the table, one line for each record that is not verified (written before seals) or
    refused (changed after the run); with --json, its "seal"."""
    from refbench.core.result import SystemIdentity, names_apart
    from refbench.public.store import list_runs
    from refbench.reporting.render import aligned_text

    listing = list_runs(store=store, limit=limit, task=task, tag=tag, note=_note)
    rows, path = listing.rows, listing.path
    unverified = {rid: v for rid, v in listing.verdicts.items() if v.state != VERIFIED}
    if as_json:
        print_json([{**r, "seal": unverified[r["run_id"]].text()} if r["run_id"] in unverified
                    else r for r in rows])
        return
    if not rows:
        click.echo(f"no runs in {path}" + (" matching" if task or tag else ""))
        return
    from refbench.tasks.result_text import data_label

    header = ["id", "created (UTC)", "system", "task", "data", "split", "n", "accuracy",
              "output folder", "tags"]
    names = names_apart([SystemIdentity(str(r["model"]), r.get("model_fingerprint"),
                                        r.get("system") if r.get("system") != r["model"]
                                        else None) for r in rows])
    body = [[str(r["run_id"]), r["created"].replace("+00:00", ""), name,
             r["task"], data_label(r["data"]), r["split"] or "-",
             f"{r['n']} of {r['data_coverage']['of'] or '?'} (partial)" if "data_coverage" in r
             else str(r["n"]),
             "-" if r["accuracy"] is None else f"{r['accuracy']:.3f}", r["out_dir"] or "-",
             ",".join(r["tags"]) or "-"] for r, name in zip(rows, names, strict=True)]
    click.echo(f"{len(rows)} run{'s' if len(rows) != 1 else ''} in {path} (newest first; "
               "accuracy as a fraction):")
    click.echo(aligned_text(header, body), nl=False)
    for rid, verdict in unverified.items():
        click.echo(f"run {rid}: {verdict.text()}")


@results.command("show", context_settings=CONTEXT, epilog=examples(
    "refbench results show 1"))
@click.argument("run_id", type=POSITIVE)
@click.option("--store", type=PATH, default=None, help=STORE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON line.")
def results_show(run_id: int, store: Path | None, as_json: bool) -> None:
    """Show one run: its record and its metrics (fractions). A record its seal refuses
    (changed after the run) is refused, exit code 2, as refbench report refuses it; one not
    verified says so on stderr."""
    import json

    from refbench.public.store import show_run

    row, verdict = show_run(run_id, store=store, note=_note)
    if verdict.state != VERIFIED:
        click.echo(verdict.text(), err=True)
    if as_json:
        print_json(row)
    else:
        click.echo(json.dumps(row, indent=2, ensure_ascii=False))


@results.command("rm", context_settings=CONTEXT, epilog=examples(
    "refbench results ls --json",
    "refbench results rm 2"))
@click.argument("run_ids", type=POSITIVE, nargs=-1, required=True)
@click.option("--store", type=PATH, default=None, help=STORE_HELP)
def results_rm(run_ids: tuple[int, ...], store: Path | None) -> None:
    """Forget runs. Their output folders and the prediction cache stay."""
    from refbench.public.store import remove_runs

    path = remove_runs(run_ids, store=store, note=_note)
    click.echo(f"removed run{'s' if len(run_ids) > 1 else ''} "
               f"{', '.join(map(str, run_ids))} from {path}")


@results.command("tag", context_settings=CONTEXT, epilog=(
    examples(
        "refbench results tag 1 --tag paper",
        "refbench results tag 1 --tag paper --remove")))
@click.argument("run_ids", type=POSITIVE, nargs=-1, required=True)
@click.option("--tag", "tags", multiple=True, required=True, help="Tag (repeatable).")
@click.option("--remove", is_flag=True, help="Remove the tags instead.")
@click.option("--store", type=PATH, default=None, help=STORE_HELP)
def results_tag(run_ids: tuple[int, ...], tags: tuple[str, ...], remove: bool,
                store: Path | None) -> None:
    """Tag runs (e.g. the ones in a paper), to list or report them together."""
    from refbench.public.store import tag_runs

    for rid, now in tag_runs(run_ids, tags, remove=remove, store=store, note=_note):
        click.echo(f"run {rid}: tags {', '.join(now) or '(none)'}")


@results.command("add", context_settings=CONTEXT, epilog=(
    examples(
        "refbench results add runs/km  # a folder refbench run --out wrote")))
@click.argument("run_dirs", type=PATH, nargs=-1, required=True)
@click.option("--store", type=PATH, default=None, help=STORE_HELP)
def results_add(run_dirs: tuple[Path, ...], store: Path | None) -> None:
    """Record runs from their folders (metrics.json), e.g. after the store was locked or when
    results move to another project. A suite run folder adds each of its subtask runs."""
    from refbench.public.store import add_runs

    for rid, metrics, folder in add_runs(run_dirs, store=store, note=_note):
        click.echo(f"run {rid}: {metrics.get('system') or metrics['model']} on "
                   f"{metrics['data']} ({folder})")


@results.command("verify", context_settings=CONTEXT, epilog=(
    examples(
        "refbench run --model first --data ../shared/data/winograd/wsc273.jsonl --out "
        "runs/wsc-verify --no-store",
        "refbench results verify runs/wsc-verify  # the seal: figures, predictions, intervals",
        "refbench results verify --rescore runs/wsc-verify  # and score the predictions "
        "again")))
@click.argument("paths", type=PATH, nargs=-1, required=True)
@click.option("--rescore", is_flag=True,
              help="Also score each run's predictions again against its data and compare "
                   "the figures with the recorded ones.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per record.")
def results_verify(paths: tuple[Path, ...], rescore: bool, as_json: bool) -> None:
    """Check run records against their evidence: the seal each run writes into metrics.json
    (a figure edited by hand, predictions changed after the run), every figure inside its own
    interval, and with --rescore the figures of the predictions scored again. Exit code 2
    when a record is refused; records written before seals are "not verified"."""
    from refbench.core.errors import RefbenchError
    from refbench.public.store import verify_records

    checked = verify_records(paths, rescore=rescore)
    for c in checked:
        if as_json:
            print_json({"path": str(c.path), "state": c.verdict.state,
                        "reason": c.verdict.reason})
        else:
            click.echo(c.line())
    refused = [c for c in checked if c.verdict.refused]
    if refused:
        raise RefbenchError(f"{len(refused)} of {len(checked)} records refused (the first: "
                            f"{refused[0].verdict.reason})", path=refused[0].path)


@results.command("merge", context_settings=CONTEXT, epilog=(
    examples(
        "refbench run --model first --data ../shared/data/winograd/wsc273.jsonl --shard "
        "1/2 --out runs/p1",
        "refbench run --model first --data ../shared/data/winograd/wsc273.jsonl --shard "
        "2/2 --out runs/p2",
        "refbench results merge runs/p1 runs/p2 --out runs/p")))
@click.argument("shard_dirs", type=PATH, nargs=-1, required=True)
@click.option("--out", type=OUT_DIR, required=True, help="Folder for the merged run.")
@click.option("--store", type=PATH, default=None, help=STORE_HELP)
@click.option("--no-store", is_flag=True, help="Do not record the merged run.")
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as one JSON object.")
@transactional
def results_merge(shard_dirs: tuple[Path, ...], out: Path, store: Path | None, no_store: bool,
                  as_json: bool) -> None:
    """Merge the shards of one run (refbench run --shard I/N, every I) into one run folder:
    the predictions and metrics one run in one process would have written, recorded as one
    run in the store. The shards must share model, data and options, and the data file must
    be readable here (at the path the shards recorded)."""
    from refbench.public.store import merge_runs
    from refbench.reporting.text import run_text

    metrics, path = merge_runs(shard_dirs, out=out, store=store, record=not no_store,
                               note=_note)
    if as_json:
        print_json(metrics)
    else:
        click.echo(run_text({**metrics, **({"store": str(path)} if path else {})}))


@results.command("import", context_settings=CONTEXT, epilog=(
    examples(
        "refbench results import ../other/results.sqlite  # needs: another results "
        "store (say, a colleague's)")))
@click.argument("source", type=PATH)
@click.option("--store", type=PATH, default=None, help=STORE_HELP)
def results_import(source: Path, store: Path | None) -> None:
    """Copy the runs and cached predictions of another store (e.g. the per-user store of
    refbench 0.1.0) into this one; runs already here are skipped."""
    from refbench.public.store import import_store

    runs, preds, path = import_store(source, store=store, note=_note)
    click.echo(f"copied {runs} run{'' if runs == 1 else 's'} and {preds} cached predictions "
               f"from {source} into {path}")


@results.command("import-lm-eval", context_settings=CONTEXT, epilog=(
    examples(
        "refbench results import-lm-eval out/*/samples_refbench_wsc273_*.jsonl --data "
        "../shared/data/winograd/wsc273.jsonl --out runs/lm-eval-wsc273 --json  # "
        "needs: the samples of lm_eval --include_path lm-tasks ... --log_samples "
        "--output_path out (refbench export lm-eval --help)",
        "refbench results import-lm-eval out/*/samples_*.jsonl --data kitmus-suite "
        "--out runs/lm-eval-kitmus  # needs: lm_eval's samples of every subtask of "
        "lm-kitmus (refbench export lm-eval --help)")))
@click.argument("samples", type=PATH, nargs=-1, required=True)
@click.option("--data", type=DATA, required=True,
              cls=FilledOption, fills=FOLDER_FILLS,
              help="The data file, or the folder ({folder_tasks}: a KITMUS suite, a release "
                   "folder), the lm-eval task or group was exported from.")
@click.option("--split", default="test", show_default=True,
              help="With a folder: the split that was exported.")
@click.option("--allow-missing", is_flag=True,
              help="With a folder: import the subtasks that have a samples file, even if "
                   "some have none (they are listed in the result).")
@click.option("--out", type=OUT_DIR, required=True, help="Run folder to write.")
@click.option("--model", "model", default=None,
              help="lm-eval's model (default: from the results_*.json beside the samples).")
@click.option("--model-args", "model_args", default=None,
              help="lm-eval's model_args (default: from the results_*.json).")
@click.option("--store", type=PATH, default=None, help=STORE_HELP)
@click.option("--no-store", is_flag=True, help="Do not record the run in the store.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the run's metrics (with a folder: its result) as JSON.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@transactional
def results_import_lm_eval(samples: tuple[Path, ...], data: Path, split: str,
                           allow_missing: bool, out: Path, model: str | None,
                           model_args: str | None, store: Path | None, no_store: bool,
                           as_json: bool, quiet: bool) -> None:
    """Make a refbench run from lm-eval's per-sample log (--log_samples): predictions with
    per-candidate log-likelihoods, metrics, and a store row naming lm-eval's model, model_args
    and version, so reports, slices, intervals and comparisons apply to lm-eval runs. With a
    folder as --data, give the samples file of every subtask of the exported group
    (samples_<task>_<time>.jsonl): the result is the suite run folder refbench run --data
    FOLDER writes, one run (and store row) per subtask."""
    from refbench.public.store import import_lm_eval

    metrics = import_lm_eval(samples, data=data, out=out, split=split,
                             allow_missing=allow_missing, model=model, model_args=model_args,
                             store=store, record=not no_store,
                             progress=not quiet and not as_json, note=_note)
    if data.is_dir():
        _print_folder_import(metrics, as_json)
        return
    if as_json:
        print_json(metrics)
        return
    lm = metrics["lm_eval"]
    acc = "-" if metrics.get("accuracy") is None else f"{metrics['accuracy']:.4f}"
    cov = metrics.get("data_coverage")
    n = f"{metrics['n']} of {cov['of']} instances (partial: lm-eval --limit)" if cov else \
        f"{metrics['n']} instances"
    click.echo(f"imported lm-eval {lm['model']} on {data}: {n}, accuracy "
               f"{acc}" + (f", run {metrics['run_id']}" if "run_id" in metrics else "")
               + f" ({out})")


def _note(line: str) -> None:
    """The store's description, on stderr (the public functions' ``note``)."""
    click.echo(line, err=True)


def _print_folder_import(result: dict[str, Any], as_json: bool) -> None:
    """What ``refbench run --data FOLDER`` prints for the imported folder run."""
    from refbench.reporting.text import suite_run_text

    if as_json:
        print_json(result)
        return
    missing = result["lm_eval"]["missing"]
    if missing:
        click.secho(f"WARNING: no samples for {len(missing)} subtasks: {', '.join(missing)}",
                    err=True, fg="yellow", bold=True)
    click.echo(suite_run_text(result))
