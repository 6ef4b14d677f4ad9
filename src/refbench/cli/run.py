"""``refbench run``, ``refbench train`` and ``refbench results``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from refbench.cli.common import CONTEXT, PATH, print_json
from refbench.core.device import DEVICE_HELP, set_threads

RUN_EXAMPLE = (
    "Examples: refbench run --model knowledge-match --data kitmus-suite --out runs/km  |  "
    "refbench run --model embedding --data ../shared/data/altentities/books/test.json.gz "
    "--input unshown_background --out runs/emb --json  |  refbench run --model "
    "cross-encoder:models/ce --data ../shared/data/knowref/test.tsv --out runs/ce")


def parse_kv(pairs: tuple[str, ...]) -> dict[str, Any]:
    from refbench.core.errors import UsageError

    out: dict[str, Any] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--model-arg expects key=value, got {item!r}")
        out[key.strip().replace("-", "_")] = value
    return out


@click.command("run", context_settings=CONTEXT, epilog=RUN_EXAMPLE)
@click.option("--model", "spec", required=True, help="Model name[:argument] (refbench ls models).")
@click.option("--data", type=PATH, required=True,
              help="A data file of any supported task, or a KITMUS suite folder.")
@click.option("--task", default=None, help="Task (inferred from the file when omitted).")
@click.option("--split", default="test", show_default=True, help="Split, for a suite folder.")
@click.option("--limit", type=int, default=None, help="Only the first N instances.")
@click.option("--out", type=PATH, required=True, help="Folder for predictions and metrics.")
@click.option("--store", type=PATH, default=None,
              help="Results store (default: ~/.local/share/refbench/results.sqlite).")
@click.option("--no-store", is_flag=True, help="Do not record the run or use the cache.")
@click.option("--model-arg", multiple=True, help="Model option key=value (repeatable).")
@click.option("--input", "input_type", default=None,
              help="AltEntities input type: name, infobox, unshown_background, oracle.")
@click.option("--max-words", type=int, default=None, help="AltEntities text cut (words).")
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as one JSON object.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def run_cmd(spec: str, data: Path, task: str | None, split: str, limit: int | None, out: Path,
            store: Path | None, no_store: bool, model_arg: tuple[str, ...],
            input_type: str | None, max_words: int | None, as_json: bool, quiet: bool) -> None:
    """Run a model on a data set: predictions (answers JSONL with per-candidate scores), the
    task's metrics and provenance in --out, and a row in the results store. Interrupted runs
    resume from the store's prediction cache.
    """
    from refbench.core.registry import MODELS
    from refbench.runs.runner import run_model, run_suite
    from refbench.runs.store import Store

    MODELS.canonical(spec.partition(":")[0])
    st = None if no_store else Store(store)
    options = parse_kv(model_arg)
    if data.is_dir():
        result = run_suite(spec, data, out, split=split, model_options=options, store=st,
                           progress=not quiet and not as_json)
        if as_json:
            print_json(result)
        else:
            from refbench.report.tables import render

            ns = sorted({c["n_entities"] for c in result["cells"]})
            acc = {(c["variant"], c["n_entities"]): c["pronoun_accuracy"]
                   for c in result["cells"]}
            variants = list(dict.fromkeys(c["variant"] for c in result["cells"]))
            rnd = result["random_baseline"]
            rows = [[v, *(f"{acc[(v, n)]:.3f}" if (v, n) in acc else "-" for n in ns)]
                    for v in variants]
            rows.append(["random", *(f"{rnd[f'{variants[0]}|{n}']:.3f}" for n in ns)])
            click.echo(render(["variant", *(f"{n} entities" for n in ns)], rows, "md",
                              title=f"{spec}: pronoun accuracy, {split} split"))
        return
    reader: dict[str, Any] = trained_reader_options(spec)
    if input_type:
        reader["input_type"] = input_type
    if max_words:
        reader["max_words"] = max_words
    metrics = run_model(spec, data, out, task=task, model_options=options,
                        reader_options=reader, limit=limit, store=st,
                        progress=not quiet and not as_json)
    if as_json:
        print_json(metrics)
        return
    acc = metrics["accuracy"]
    click.echo(f"{spec} on {data}: accuracy {acc:.3f} over {metrics['n_with_gold']} instances"
               if acc is not None else f"{spec} on {data}: {metrics['n']} instances, no gold")
    if "accuracy_norm" in metrics:
        click.echo(f"  accuracy (length-normalised): {metrics['accuracy_norm']:.3f}")
    for key in ("pronoun_accuracy", "antecedent_f1", "f1", "truncated_instances"):
        if metrics.get(key) is not None:
            click.echo(f"  {key}: {metrics[key]:.3f}" if isinstance(metrics[key], float)
                       else f"  {key}: {metrics[key]}")
    for name, group in metrics["slices"].items():
        parts = [f"{k} {v['accuracy']:.3f} (n={v['n']})" for k, v in group.items()
                 if v["accuracy"] is not None]
        click.echo(f"  by {name}: " + ", ".join(parts))
    click.echo(f"  predictions: {out / 'predictions.jsonl'}"
               + (f"; run {metrics['run_id']} in {st.path}" if st else ""))


def trained_reader_options(spec: str) -> dict[str, Any]:
    """How a trained cross-encoder's training data was read (``--input``, ``--max-words``):
    the defaults for running it, so test texts are cut the way training texts were."""
    import json

    name, _, arg = spec.partition(":")
    cfg = Path(arg) / "config.json"
    if name != "cross-encoder" or not arg or not cfg.is_file():
        return {}
    return dict(json.loads(cfg.read_text()).get("reader") or {})


@click.command("train", context_settings=CONTEXT, epilog=(
    "Example: refbench train --model cross-encoder --data kitmus-suite/background-pretrain/"
    "subtask_4_ents/train.jsonl --dev kitmus-suite/background-pretrain/subtask_4_ents/"
    "validation.jsonl --out models/ce-pretrain4"))
@click.option("--model", "spec", default="cross-encoder", show_default=True,
              help="Trainable model (cross-encoder).")
@click.option("--data", type=PATH, required=True, help="Training data (any choice task).")
@click.option("--dev", type=PATH, default=None,
              help="Dev data for early stopping (default: 10% held out from --data, whole "
                   "questions where instances share one).")
@click.option("--task", default=None, help="Task (inferred when omitted).")
@click.option("--out", type=PATH, required=True, help="Model folder.")
@click.option("--head", default="joint", show_default=True, help="joint or binary.")
@click.option("--epochs", type=int, default=3, show_default=True)
@click.option("--lr", type=float, default=3e-5, show_default=True)
@click.option("--head-lr", type=float, default=None,
              help="Rate of the head and the prior's weight (default: --lr).")
@click.option("--batch-size", type=int, default=8, show_default=True,
              help="Instances per step (each brings all its candidates).")
@click.option("--max-length", type=int, default=128, show_default=True)
@click.option("--evidence-words", type=int, default=60, show_default=True,
              help="Words of description selected per candidate (free-text tasks).")
@click.option("--max-words", type=int, default=None, help="AltEntities text cut (words).")
@click.option("--max-steps", type=int, default=None, help="Stop after this many steps.")
@click.option("--eval-every", type=int, default=None,
              help="Also score dev every N steps and before the first (keep the best).")
@click.option("--patience", type=int, default=2, show_default=True,
              help="Dev evaluations without a gain before stopping.")
@click.option("--freeze-layers", type=int, default=0, show_default=True,
              help="Keep the embeddings and the lowest N encoder layers fixed.")
@click.option("--seed", type=int, default=13, show_default=True)
@click.option("--input", "input_type", default=None, help="AltEntities input type.")
@click.option("--resume", is_flag=True, help="Continue from DIR/checkpoint (must exist).")
@click.option("--device", default="auto", show_default=True, help=DEVICE_HELP)
@click.option("--threads", type=int, default=None, help="CPU threads for torch.")
@click.option("--json", "as_json", is_flag=True, help="Print the training report as JSON.")
def train_cmd(spec: str, data: Path, dev: Path | None, task: str | None, out: Path, head: str,
              epochs: int, lr: float, head_lr: float | None, batch_size: int, max_length: int,
              evidence_words: int,
              max_words: int | None, max_steps: int | None, eval_every: int | None,
              patience: int, freeze_layers: int, seed: int, input_type: str | None,
              resume: bool, device: str, threads: int | None, as_json: bool) -> None:
    """Fine-tune the MiniLM cross-encoder on CPU: seeded, dev-set early stopping, a checkpoint
    every epoch, --resume. Then run it with --model cross-encoder:DIR.
    """
    from refbench.core.errors import UsageError
    from refbench.models.train import held_out_split, train_cross_encoder
    from refbench.tasks.choices import read_choices

    if spec.partition(":")[0] != "cross-encoder":
        raise UsageError(f"{spec!r} is not trainable; the trainable model is cross-encoder")
    set_threads(threads)
    reader: dict[str, object] = {"input_type": input_type} if input_type else {}
    if max_words:
        reader["max_words"] = max_words
    train = list(read_choices(data, task=task, options=reader))
    if dev is not None:
        dev_set = list(read_choices(dev, task=task, options=reader))
    else:
        train, dev_set = held_out_split(train, seed=seed)
    report = train_cross_encoder(train, dev_set, out, head=head, epochs=epochs, lr=lr,
                                 head_lr=head_lr,
                                 batch_size=batch_size, max_length=max_length,
                                 evidence_words=evidence_words, reader_options=reader,
                                 seed=seed, eval_every=eval_every, patience=patience,
                                 freeze_layers=freeze_layers, max_steps=max_steps,
                                 resume=resume, device=device, progress=not as_json)
    if as_json:
        print_json(report)
    else:
        click.echo(f"best dev accuracy {report['best_dev_accuracy']:.3f} after "
                   f"{report['epochs_done']} epoch(s); model in {out}")


@click.group("results", context_settings=CONTEXT,
             epilog="Examples: refbench results ls  |  refbench results show 3 --json")
def results() -> None:
    """Runs recorded in the results store."""


@results.command("ls", context_settings=CONTEXT, epilog="Example: refbench results ls --limit 5")
@click.option("--store", type=PATH, default=None, help="Results store.")
@click.option("--limit", type=int, default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def results_ls(store: Path | None, limit: int, as_json: bool) -> None:
    """List recorded runs, newest first."""
    from refbench.runs.store import Store

    rows = Store(store).runs(limit=limit)
    if as_json:
        print_json(rows)
        return
    for r in rows:
        acc = "-" if r["accuracy"] is None else f"{r['accuracy']:.3f}"
        click.echo(f"{r['run_id']:>5}  {r['created']}  {r['model']:28s} {r['task']:12s} "
                   f"n={r['n']:<6} acc={acc}  {r['data']}")


@results.command("show", context_settings=CONTEXT, epilog="Example: refbench results show 3")
@click.argument("run_id", type=int)
@click.option("--store", type=PATH, default=None, help="Results store.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def results_show(run_id: int, store: Path | None, as_json: bool) -> None:
    """Show one run's metrics."""
    import json

    from refbench.runs.store import Store

    row = Store(store).get(run_id)
    if as_json:
        print_json(row)
    else:
        click.echo(json.dumps(row, indent=2, ensure_ascii=False))
