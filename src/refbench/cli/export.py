"""``refbench export``: suites and data sets in other tools' layouts."""

from __future__ import annotations

from pathlib import Path

import click

from refbench.cli.common import CONTEXT, OUT_DIR, PATH, print_json, transactional


@click.group("export", context_settings=CONTEXT, epilog=(
    "Example: refbench export hf kitmus-suite --out hf/kitmus"))
def export() -> None:
    """Export suites and data sets for other tools (the Hugging Face Hub, ...)."""


@export.command("hf", context_settings=CONTEXT, epilog=(
    "Examples: refbench export hf kitmus-suite --out hf/kitmus  |  refbench export hf "
    "../shared/data/knowref/knowref_test.json --out hf/knowref  |  refbench export hf "
    "../shared/data/gap/gap-development.tsv ../shared/data/gap/gap-test.tsv --out hf/gap  |  "
    "refbench export hf ../shared/data/winobias --out hf/winobias. "
    "Then: datasets.load_dataset('hf/kitmus', 'background-pretrain_4ents', split='test')"))
@click.argument("inputs", type=PATH, nargs=-1, required=True)
@click.option("--out", type=OUT_DIR, required=True, help="Folder for the dataset (and its card).")
@click.option("--task", default=None, help="Task of the files (inferred when omitted).")
@click.option("--input", "input_type", default=None,
              help="AltEntities input type: name, infobox, unshown_background, oracle.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@transactional
def export_hf_cmd(inputs: tuple[Path, ...], out: Path, task: str | None,
                  input_type: str | None, as_json: bool) -> None:
    """Write a release folder a task takes whole (a KITMUS suite: one config per subtask,
    <variant>_<n>ents; Winogender; WinoBias: one config per type and stereotype) or data files
    of one task (one split each) in the layout Hugging Face datasets loads from a folder or a
    Hub repo without a loading script: JSONL data files and a README.md dataset card (YAML
    header with configs, licence, categories and dataset_info; the datasheet as its body).
    """
    from refbench.export.hf import export_hf

    reader = {"input_type": input_type} if input_type else None
    summary = export_hf(list(inputs), out, task=task, reader_options=reader)
    if as_json:
        print_json(summary)
        return
    click.echo(f"{summary['task']} ({summary['license']}) -> {out}")
    for name, splits in summary["configs"].items():
        click.echo(f"  {name}: " + ", ".join(f"{s} {n:,}" for s, n in splits.items()))
