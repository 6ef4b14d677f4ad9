"""``refbench train``: any registered trainer (``refbench ls trainers``) on a data file.

The command knows no trainer: ``--model NAME[:ARGUMENT]`` picks one from the registry, its
options come as ``--train-arg KEY=VALUE`` or by the flags the trainers declare (``--epochs``),
the task's reader options as ``--task-arg`` or the task's own flags, and the trainer says what
it made (:meth:`~refbench.core.trainer.Trainer.done`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import click

from refbench.cli.declared import (
    DeclaredCommand,
    Owners,
    checked,
    checked_for_tasks,
    given,
    options_listing,
    task_owners,
)
from refbench.core.commands import CONTEXT, DATA, OUT_DIR, POSITIVE, SEED, print_json
from refbench.core.device import DEVICE_HELP
from refbench.core.help_text import FilledOption, examples, or_list
from refbench.core.options import Option


def trainer_owners() -> Owners:
    """Every registered trainer (a plugin's included) as an owner of options."""
    def owners() -> Iterable[tuple[str, Sequence[Option]]]:
        from refbench.core.errors import RefbenchError
        from refbench.core.registry import TRAINERS
        from refbench.core.trainer import trainer_class
        from refbench.tasks.lookup import warn_once

        for name in TRAINERS.names():
            try:
                yield name, trainer_class(name).OPTIONS
            except RefbenchError as exc:  # a broken plugin: left out of the help
                warn_once(exc.message)

    return owners


def _trainers() -> str:
    from refbench.core.registry import TRAINERS

    return or_list(TRAINERS.names())


FILLS = {"trainers": _trainers, "trainer_options": lambda: options_listing(trainer_owners()),
         "task_options": lambda: options_listing(task_owners())}


@click.command("train", cls=DeclaredCommand, fills=FILLS, context_settings=CONTEXT,
               declared={"trainer": trainer_owners(), "task": task_owners()}, epilog=examples(
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
    "validation.jsonl --out models/head-pretrain4 --train-arg epochs=15  # frozen MiniLM, "
    "trained head: minutes; then --model encoder-head:models/head-pretrain4"))
@click.option("--model", "spec", default=None, cls=FilledOption, fills=FILLS,
              help="Trainer NAME[:ARGUMENT] (refbench ls trainers): {trainers}; default: the "
                   "first.")
@click.option("--data", type=DATA, required=True, help="Training data.")
@click.option("--dev", type=DATA, default=None,
              help="Dev data for selection (default: held out from --data by the trainer); a "
                   "test file is refused.")
@click.option("--task", default=None, help="Task (inferred when omitted).")
@click.option("--out", type=OUT_DIR, required=True, help="Model folder.")
@click.option("--train-arg", multiple=True, metavar="KEY=VALUE", cls=FilledOption, fills=FILLS,
              help="A trainer option (repeatable): {trainer_options}.")
@click.option("--task-arg", multiple=True, metavar="KEY=VALUE", cls=FilledOption, fills=FILLS,
              help="An option of the task's reader (repeatable; recorded with the model): "
                   "{task_options}.")
@click.option("--augment", is_flag=True,
              help="Add the task's augmented copy of every training instance (tasks with the "
                   "training capability).")
@click.option("--seed", type=SEED, default=13, show_default=True)
@click.option("--resume", is_flag=True, help="Continue from the folder's checkpoint (must exist).")
@click.option("--device", default="auto", show_default=True, help=DEVICE_HELP)
@click.option("--threads", type=POSITIVE, default=None, help="CPU threads for torch.")
@click.option("--json", "as_json", is_flag=True, help="Print the training report as JSON.")
def train_cmd(spec: str | None, data: Path, dev: Path | None, task: str | None, out: Path,
              train_arg: tuple[str, ...], task_arg: tuple[str, ...], augment: bool, seed: int,
              resume: bool, device: str, threads: int | None, as_json: bool) -> None:
    """Train a model with a registered trainer ({trainers}; refbench ls trainers): each
    declares its options, given as --train-arg KEY=VALUE or by the flags listed below. Seeded,
    selected on dev (never on a test file), checkpoints, --resume. What each trainer makes,
    and how the trained model is then run, is its line in refbench ls trainers.
    """
    from refbench.core.options import parse_options
    from refbench.core.registry import TRAINERS
    from refbench.core.trainer import trainer_class
    from refbench.public.training import train
    from refbench.tasks.choices import infer_task
    from refbench.tasks.lookup import get_task

    spec = spec or TRAINERS.names()[0]
    cls = trainer_class(spec)
    options = checked(given("trainer", train_arg, flag="--train-arg"),
                      lambda one: parse_options(f"trainer {cls.name}", cls.OPTIONS, one))
    asked = given("task", task_arg)
    the_task = (get_task(task) if task else infer_task(data, kinds=None)) if asked else task
    reader = checked_for_tasks(asked, [the_task]) if asked else {}
    trained = train(spec, data=data, out=out, dev=dev, task=the_task, trainer_options=options,
                    reader_options=reader, augment=augment, seed=seed, resume=resume,
                    device=device, threads=threads, progress=not as_json)
    if as_json:
        print_json(trained.report)
    else:
        click.echo(trained.text)
