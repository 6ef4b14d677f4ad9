"""``refbench run``, ``refbench train`` and ``refbench results``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from refbench.cli.benchmarks import ALL, BENCHMARK_DATA, run_several, warn_skipped
from refbench.cli.ls import FOLDER_FILLS
from refbench.core.commands import (
    CONTEXT,
    COUNT,
    DATA,
    OUT_DIR,
    PATH,
    POSITIVE,
    SEED,
    print_json,
    transactional,
)
from refbench.core.device import DEVICE_HELP, set_threads
from refbench.core.help_text import FilledOption, examples

RUN_EXAMPLE = examples(
    "refbench run --model knowledge-match --data kitmus-suite --out runs/km  # kitmus-suite: "
    "refbench kitmus generate",
    "refbench run --model embedding --data ../shared/data/altentities/books/test.json.gz "
    "--input unshown_background --limit 200 --out runs/emb --json  # all 5,966: minutes",
    "refbench run --model embedding --data ../shared/data/winograd/wsc273.jsonl --out runs/s2 "
    "--shard 2/3",
    "refbench run --model first --data wsc273 --data gap:test --data knowref:test --out runs/many"
    "  # one folder each, one table (runs/many/summary.json); --data all: every release",
    "refbench run --model cross-encoder:models/ce-pretrain4 --data kitmus-suite --out runs/ce  "
    "# needs: a trained model (the refbench train example)",
    "refbench run --model embedding --data ../shared/data/winograd/wsc273.jsonl --out runs/d "
    "--engine dask --scheduler tcp://127.0.0.1:8786  # needs: a running Dask scheduler")


@click.command("run", context_settings=CONTEXT, epilog=RUN_EXAMPLE)
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
@click.option("--model-arg", multiple=True, help="Model option key=value (repeatable).")
@click.option("--input", "input_type", default=None,
              help="AltEntities input type: name, infobox, unshown_background, oracle.")
@click.option("--max-words", type=POSITIVE, default=None, help="AltEntities text cut (words).")
@click.option("--skip-invalid", is_flag=True,
              help="Skip malformed instances (reported as a count and ids) instead of stopping.")
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
            no_store: bool, model_arg: tuple[str, ...],
            input_type: str | None, max_words: int | None, skip_invalid: bool, shard: str | None,
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

    from refbench.core.errors import UsageError
    from refbench.core.options import parse_key_values
    from refbench.models.base import check_model_options
    from refbench.runs.record import RunSettings
    from refbench.runs.shards import parse_shard
    from refbench.tasks.lookup import get_task

    options = check_model_options(spec, parse_key_values(model_arg, flag="--model-arg"))
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
    reader: dict[str, Any] = {} if several or paths[0].is_dir() \
        else trained_reader_options(spec)
    if input_type:
        reader["input_type"] = input_type
    if max_words:
        reader["max_words"] = max_words
    settings = RunSettings(model=spec, model_options=options, reader_options=reader,
                           limit=limit, system=system, shard=part,
                           split=split)
    with contextlib.ExitStack() as stack:
        dask = None
        if engine == "dask":
            from refbench.runs.distributed import DaskEngine

            dask = stack.enter_context(DaskEngine(scheduler, spec, options))
        if several:
            run_several(settings, data, get_task(task) if task else None, out, store=store,
                         no_store=no_store, skip_invalid=skip_invalid, engine=dask,
                         as_json=as_json, quiet=quiet)
            return
        _run(settings, paths[0], get_task(task) if task else None, out, store=store,
             no_store=no_store, skip_invalid=skip_invalid, engine=dask, as_json=as_json,
             quiet=quiet)


def _run(settings: Any, data: Path, task: Any, out: Path, *, store: Path | None,
         no_store: bool, skip_invalid: bool, engine: Any, as_json: bool, quiet: bool) -> None:
    """One run (or folder run) of ``settings`` (a :class:`~refbench.runs.record.RunSettings`)
    on ``data``, printed as a table or JSON."""
    from refbench.core.invalid import InvalidInstances
    from refbench.reporting.text import run_text, suite_run_text
    from refbench.runs.runner import run_model, run_suite
    from refbench.runs.store import Store

    st = None if no_store else Store(store)
    if st is not None:
        click.echo(st.describe(), err=True)
    invalid = InvalidInstances() if skip_invalid else None
    for note in st.notes if st else ():
        click.echo(note, err=True)
    where = {"store": str(st.path)} if st else {}
    progress = not quiet and not as_json
    if data.is_dir():
        result = run_suite(settings, data, out, store=st, progress=progress,
                           on_invalid=invalid, task=task, engine=engine)
        warn_skipped(invalid)
        if as_json:
            print_json(result)
        else:
            click.echo(suite_run_text(result))
        return
    metrics = run_model(settings, data, out, task=task, store=st, progress=progress,
                        on_invalid=invalid, engine=engine)
    warn_skipped(invalid)
    for w in metrics.get("warnings", []):
        click.secho(f"WARNING: {w}", err=True, fg="yellow", bold=True)
    if as_json:
        print_json(metrics)
    else:
        click.echo(run_text({**metrics, **where}))


def trained_reader_options(spec: str) -> dict[str, Any]:
    """How a trained cross-encoder's training data was read (``--input``, ``--max-words``):
    the defaults for running it, so test texts are cut the way training texts were."""
    from refbench.core.io import load_json_object

    name, _, arg = spec.partition(":")
    cfg = Path(arg) / "config.json"
    if name != "cross-encoder" or not arg or not cfg.is_file():
        return {}
    reader = load_json_object(cfg, "model configuration").get("reader") or {}
    return dict(reader) if isinstance(reader, dict) else {}


# Options only one trainer takes: given to the other, they are refused.
TRAINER_ONLY = {"cross-encoder": ("head", "head_lr", "evidence_words", "freeze_layers"),
                "llm-loglik": ("train_layers", "scoring", "checkpoint_every"),
                "encoder-head": ("features",)}
# Options the frozen-encoder head does not take (it scores dev after every epoch).
NOT_FOR_HEAD = ("eval_every", "patience", "max_steps", "max_length")


@click.command("train", context_settings=CONTEXT, epilog=examples(
    "refbench train --model cross-encoder --data kitmus-suite/background-pretrain/"
    "subtask_4_ents/train.jsonl --dev kitmus-suite/background-pretrain/subtask_4_ents/"
    "validation.jsonl --out models/ce-pretrain4 --epochs 1  # kitmus-suite: refbench kitmus "
    "generate; on the 2,000 of the default sizes: minutes an epoch on a CPU",
    "refbench run --model cross-encoder:models/ce-pretrain4 --data kitmus-suite/"
    "background-pretrain/subtask_4_ents/test.jsonl --out runs/ce",
    "refbench train --model llm-loglik --data ../shared/data/knowref/train.tsv --dev "
    "../shared/data/knowref/dev.tsv --augment --eval-every 200 --threads 1 --out "
    "models/lm-knowref  # needs: hours of CPU (docs/lm-ranker.md); then --model "
    "llm-loglik:models/lm-knowref/model",
    "refbench train --model encoder-head --data kitmus-suite/background-pretrain/"
    "subtask_4_ents/train.jsonl --dev kitmus-suite/background-pretrain/subtask_4_ents/"
    "validation.jsonl --out models/head-pretrain4  # frozen MiniLM, trained head: minutes; "
    "then --model encoder-head:models/head-pretrain4"))
@click.option("--model", "spec", default="cross-encoder", show_default=True,
              help="Trainable model: cross-encoder, llm-loglik[:PATH] (a causal LM as a "
                   "ranker; default weights SmolLM2-135M), or encoder-head (frozen MiniLM "
                   "sentence vectors, a small trained head).")
@click.option("--data", type=DATA, required=True, help="Training data (any choice task).")
@click.option("--dev", type=DATA, default=None,
              help="Dev data for selection (default: 10% held out from --data, whole "
                   "questions where instances share one); a test file is refused.")
@click.option("--task", default=None, help="Task (inferred when omitted).")
@click.option("--out", type=OUT_DIR, required=True, help="Model folder.")
@click.option("--augment", is_flag=True,
              help="Add the antecedent-switched copy of every training instance (KnowRef).")
@click.option("--head", type=click.Choice(["joint", "binary"]), default="joint",
              show_default=True, help="cross-encoder: joint or binary.")
@click.option("--epochs", type=POSITIVE, default=None,
              help="Epochs (cross-encoder 3, llm-loglik 2, encoder-head 15).")
@click.option("--lr", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Learning rate (cross-encoder 3e-5, llm-loglik 2e-5, encoder-head 3e-4).")
@click.option("--head-lr", type=click.FloatRange(min=0, min_open=True), default=None,
              help="cross-encoder: rate of the head and the prior's weight (default: --lr).")
@click.option("--batch-size", type=POSITIVE, default=8, show_default=True,
              help="Instances per step (each brings all its candidates).")
@click.option("--max-length", type=POSITIVE, default=None,
              help="Tokens per sequence (cross-encoder 128; llm-loglik: the model's context).")
@click.option("--evidence-words", type=POSITIVE, default=60, show_default=True,
              help="cross-encoder: words of description selected per candidate (free-text "
                   "tasks).")
@click.option("--max-words", type=POSITIVE, default=None, help="AltEntities text cut (words).")
@click.option("--max-steps", type=POSITIVE, default=None, help="Stop after this many steps.")
@click.option("--eval-every", type=POSITIVE, default=None,
              help="Also score dev every N steps and before the first (keep the best).")
@click.option("--patience", type=COUNT, default=None,
              help="Dev evaluations without a gain before stopping (cross-encoder 2, "
                   "llm-loglik 4).")
@click.option("--freeze-layers", type=COUNT, default=0, show_default=True,
              help="cross-encoder: keep the embeddings and the lowest N encoder layers fixed.")
@click.option("--train-layers", type=COUNT, default=4, show_default=True,
              help="llm-loglik: train the top N decoder layers and the final norm; 0: every "
                   "parameter.")
@click.option("--scoring", type=click.Choice(["partial", "whole"]), default="partial",
              show_default=True, help="llm-loglik: what is scored (its scoring option; run "
                                      "the trained model with the same).")
@click.option("--checkpoint-every", type=POSITIVE, default=100, show_default=True,
              help="llm-loglik: steps between checkpoints (and at each epoch's end).")
@click.option("--features", type=PATH, default=None,
              help="encoder-head: the sentence-vector cache folder (default DIR/features).")
@click.option("--seed", type=SEED, default=13, show_default=True)
@click.option("--input", "input_type", default=None, help="AltEntities input type.")
@click.option("--resume", is_flag=True, help="Continue from DIR/checkpoint (must exist).")
@click.option("--device", default="auto", show_default=True, help=DEVICE_HELP)
@click.option("--threads", type=POSITIVE, default=None, help="CPU threads for torch.")
@click.option("--json", "as_json", is_flag=True, help="Print the training report as JSON.")
def train_cmd(spec: str, data: Path, dev: Path | None, task: str | None, out: Path,
              augment: bool, head: str, epochs: int | None, lr: float | None,
              head_lr: float | None, batch_size: int, max_length: int | None,
              evidence_words: int, max_words: int | None, max_steps: int | None,
              eval_every: int | None, patience: int | None, freeze_layers: int,
              train_layers: int, scoring: str, checkpoint_every: int,
              features: Path | None, seed: int, input_type: str | None, resume: bool,
              device: str, threads: int | None, as_json: bool) -> None:
    """Fine-tune a choice model: the MiniLM cross-encoder (then --model cross-encoder:DIR),
    a causal LM as a ranker over the candidates, trained on the log-likelihoods llm-loglik
    scores (then --model llm-loglik:DIR/model, a Hugging Face folder), or a small head over
    frozen MiniLM sentence vectors (then --model encoder-head:DIR). Seeded, selected on dev
    (never on a test file), checkpoints, --resume.
    """
    from refbench.core.errors import UsageError
    from refbench.models.selection import refuse_test_selection
    from refbench.models.train import held_out_split, train_cross_encoder
    from refbench.tasks.choices import read_choices
    from refbench.tasks.lookup import get_task

    name, _, argument = spec.partition(":")
    if name not in TRAINER_ONLY:
        raise UsageError(f"{spec!r} is not trainable; the trainable models are cross-encoder, "
                         "llm-loglik[:PATH] and encoder-head")
    source = click.get_current_context().get_parameter_source
    for other, options in TRAINER_ONLY.items():
        for option in options if other != name else ():
            if source(option) is not click.core.ParameterSource.DEFAULT:
                raise UsageError(f"--{option.replace('_', '-')} is an option of {other} "
                                 f"training, not {name}")
    for option in NOT_FOR_HEAD if name == "encoder-head" else ():
        if source(option) is not click.core.ParameterSource.DEFAULT:
            raise UsageError(f"--{option.replace('_', '-')} is not an option of encoder-head "
                             "training (it scores dev after every epoch)")
    if dev is not None:
        refuse_test_selection(dev)
    set_threads(threads)
    reader: dict[str, object] = {"input_type": input_type} if input_type else {}
    if max_words:
        reader["max_words"] = max_words
    the_task = get_task(task) if task else None
    if augment:
        from refbench.models.augment import augmented_training_file

        data = augmented_training_file(data, task=the_task, work=out)
    train = list(read_choices(data, task=the_task, options=reader))
    if dev is not None:
        dev_set = list(read_choices(dev, task=the_task, options=reader))
    else:
        train, dev_set = held_out_split(train, seed=seed)
    if name == "llm-loglik":
        from refbench.models.lm_ranker import RankerSettings, train_lm_ranker

        settings = RankerSettings(
            epochs=epochs or 2, lr=lr or 2e-5, batch_size=batch_size, train_layers=train_layers,
            scoring=scoring, seed=seed, eval_every=eval_every, max_steps=max_steps,
            checkpoint_every=checkpoint_every, max_length=max_length,
            patience=4 if patience is None else patience)
        report = train_lm_ranker(train, dev_set, out, base=argument or None, settings=settings,
                                 reader_options=reader, resume=resume, device=device,
                                 progress=not as_json)
        where = f"run it with --model {report['run_with']}"
    elif name == "encoder-head":
        from refbench.models.train_head import HeadSettings, train_encoder_head

        report = train_encoder_head(
            train, dev_set, out, settings=HeadSettings(
                epochs=epochs or 15, lr=lr or 3e-4, seed=seed,
                batch_size=32 if source("batch_size") is click.core.ParameterSource.DEFAULT
                else batch_size),
            cache=features, resume=resume, device=device, progress=not as_json)
        where = f"run it with --model encoder-head:{out}"
    else:
        report = train_cross_encoder(train, dev_set, out, head=head, epochs=epochs or 3,
                                     lr=lr or 3e-5, head_lr=head_lr, batch_size=batch_size,
                                     max_length=max_length or 128,
                                     evidence_words=evidence_words, reader_options=reader,
                                     seed=seed, eval_every=eval_every,
                                     patience=2 if patience is None else patience,
                                     freeze_layers=freeze_layers, max_steps=max_steps,
                                     resume=resume, device=device, progress=not as_json)
        where = f"run it with --model cross-encoder:{out}"
    if as_json:
        print_json(report)
    else:
        click.echo(f"best dev accuracy {report['best_dev_accuracy']:.3f} after "
                   f"{report['epochs_done']} epoch(s); {where}")
