"""``refbench export``: refbench's data in other tools' layouts (lm-evaluation-harness task
folders, Hugging Face datasets folders)."""

from __future__ import annotations

from pathlib import Path

import click

from refbench.cli.declared import DeclaredCommand, options_listing, task_owners
from refbench.cli.ls import FOLDER_FILLS
from refbench.core.commands import CONTEXT, DATA, OUT_DIR, print_json, transactional
from refbench.core.help_text import FilledOption, examples


@click.group("export", context_settings=CONTEXT, epilog=(
    examples(
        "refbench export lm-eval --data ../shared/data/winograd/wsc273.jsonl --out "
        "lm-tasks --json",
        "refbench export hf kitmus-suite --out hf/kitmus  # kitmus-suite: refbench "
        "kitmus generate")))
def export() -> None:
    """Export data to other tools: task folders for lm-evaluation-harness, folders that
    Hugging Face datasets loads."""


_HF_FILLS = {**FOLDER_FILLS, "task_options": lambda: options_listing(task_owners())}


@export.command("hf", cls=DeclaredCommand, declared={"task": task_owners()}, fills=_HF_FILLS,
                context_settings=CONTEXT, epilog=(
    examples(
        "refbench export hf kitmus-suite --out hf/kitmus  # kitmus-suite: refbench "
        "kitmus generate",
        "refbench export hf ../shared/data/knowref/knowref_test.json --out hf/knowref",
        "refbench export hf ../shared/data/gap/gap-development.tsv "
        "../shared/data/gap/gap-test.tsv --out hf/gap",
        "refbench export hf ../shared/data/winobias --out hf/winobias --format parquet  "
        "# then, in Python: datasets.load_dataset('hf/kitmus', "
        "'background-pretrain_4ents', split='test')")))
@click.argument("inputs", type=DATA, nargs=-1, required=True)
@click.option("--out", type=OUT_DIR, required=True, help="Folder for the dataset (and its card).")
@click.option("--task", default=None, help="Task of the files (inferred when omitted).")
@click.option("--task-arg", multiple=True, metavar="KEY=VALUE", cls=FilledOption,
              fills=_HF_FILLS, help="An option of the task's reader (repeatable): "
                                    "{task_options}.")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "parquet"]), default="jsonl",
              show_default=True, help="Data files: JSON Lines, or Parquet written by datasets.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@transactional
def export_hf_cmd(inputs: tuple[Path, ...], out: Path, task: str | None,
                  task_arg: tuple[str, ...], fmt: str, as_json: bool) -> None:
    """Write a folder a task takes whole ({folder_tasks}: one config per part, such as a
    KITMUS suite's <variant>_<n>ents or WinoBias's type and stereotype) or data files of one
    task (one split each) in the layout Hugging Face datasets loads from a folder or a Hub repo
    without a loading script: JSONL (or Parquet) data files and a README.md dataset card (YAML
    header with configs, licence, categories and dataset_info; the datasheet as its body).
    """
    from refbench.cli.declared import checked_for_tasks, given, tasks_of
    from refbench.public.export import hf_dataset
    from refbench.tasks.lookup import get_task

    the_task = get_task(task) if task else None
    asked = given("task", task_arg)
    reader = checked_for_tasks(asked, tasks_of(list(inputs), the_task)) if asked else None
    summary = hf_dataset(inputs, out=out, task=the_task, reader_options=reader, fmt=fmt)
    if as_json:
        print_json(summary)
        return
    click.echo(f"{summary['task']} ({summary['license']}) -> {out}")
    for name, splits in summary["configs"].items():
        click.echo(f"  {name}: " + ", ".join(f"{s} {n:,}" for s, n in splits.items()))


@export.command("lm-eval", context_settings=CONTEXT, epilog=(
    examples(
        "refbench export lm-eval --data ../shared/data/winograd/wsc273.jsonl --out "
        "lm-tasks --json",
        "refbench export lm-eval --data kitmus-suite --out lm-kitmus  # then: lm_eval "
        "--model hf --model_args pretrained=PATH --include_path lm-tasks --tasks "
        "refbench_wsc273 --log_samples --output_path out",
        "refbench export lm-eval --data ../shared/data/winograd/wsc273.jsonl --template "
        "question --out lm-wsc-question")))
@click.option("--data", "data", type=DATA, required=True, cls=FilledOption, fills=FOLDER_FILLS,
              help="A data file (any format refbench reads) or a folder a task takes whole "
                   "({folder_tasks}).")
@click.option("--out", type=OUT_DIR, required=True, help="Task folder to write.")
@click.option("--split", default="test", show_default=True,
              help="Split of a folder (a KITMUS suite) to export.")
@click.option("--template", default="substitution", show_default=True,
              help="The task's LLM prompt template (tasks/<task>/llm_templates.json), as "
                   "llm-loglik's --model-arg template=NAME.")
@click.option("--json", "as_json", is_flag=True,
              help="Last line: {include_path, tasks, group, model_args, template}.")
@transactional
def export_lm_eval_cmd(data: Path, out: Path, split: str, template: str,
                       as_json: bool) -> None:
    """A task folder for `lm_eval --include_path DIR`: one YAML per task (per data file of a
    folder, such as a KITMUS subtask, plus a group weighted by size), the data as local JSONL,
    utils.py and a README. Its `acc` with `--model hf` equals `refbench run --model
    llm-loglik` on the same data (with `--template NAME`: `--model-arg template=NAME`)."""
    from refbench.public.export import lm_eval_tasks

    result = lm_eval_tasks(data, out=out, split=split, template=template)
    if as_json:
        print_json(result)
        return
    click.echo(f"wrote {len(result['tasks'])} lm-eval task"
               f"{'s' if len(result['tasks']) != 1 else ''} to {out}"
               + (f" (group {result['group']})" if result["group"] else ""))
    click.echo(f"run: lm_eval --model hf --model_args {result['model_args']} "
               f"--include_path {out} --tasks {result['group'] or result['tasks'][0]}")
