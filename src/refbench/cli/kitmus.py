"""``refbench kitmus``: generate, validate and rebuild the KITMUS test suite."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import click

from refbench.cli.common import CONTEXT, PATH, parse_ints, parse_sizes, print_json, split_list


@click.group(context_settings=CONTEXT, epilog="Example: refbench kitmus generate --out suite "
             "--sizes test=200 --variants background-pretrain")
def kitmus() -> None:
    """KITMUS: generate, validate and rebuild the knowledge-integration test suite."""


@kitmus.command(context_settings=CONTEXT, epilog=(
    "Examples: refbench kitmus generate --out suite  |  refbench kitmus generate --out small "
    "--entities 2 --splits test --sizes test=50 --formats jsonl,conll  |  refbench kitmus "
    "generate --out official --resources ../shared/data/kitmus-official/resources"))
@click.option("--out", type=PATH, default=Path("kitmus-suite"), show_default=True,
              help="Output folder.")
@click.option("--resources", type=PATH, default=None,
              help="Resource folder (refbench or official KITMUS layout). Default: built-in.")
@click.option("--variants", help="Comma-separated variant names (see refbench ls variants).")
@click.option("--entities", help="Subtasks, e.g. 2,3,4.")
@click.option("--splits", help="train,validation,test")
@click.option("--formats", help="conll,jsonlines,tsv,txt,jsonl (default: all).")
@click.option("--sizes", help="Instances per split: train=2000,validation=400,test=2000, or one "
                              "number for all.")
@click.option("--seed", type=int, default=42, show_default=True,
              help="Random seed: same seed, same bytes.")
@click.option("--workers", type=int, default=0, help="Processes (0: one per CPU core).")
@click.option("--overwrite", is_flag=True, help="Replace a non-empty --out.")
@click.option("--json", "as_json", is_flag=True, help="Print stats.json instead of a summary.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def generate(out: Path, resources: Path | None, variants: str | None, entities: str | None,
             splits: str | None, formats: str | None, sizes: str | None, seed: int,
             workers: int, overwrite: bool, as_json: bool, quiet: bool) -> None:
    """Generate the KITMUS suite: 8 variants x 2/3/4 entities x train/validation/test.

    Writes every official view and format plus refbench's native JSONL, DATASHEET.md and
    stats.json. Deterministic: the same seed and resources give byte-identical files, and a
    subset (--variants/--entities/--splits) gives exactly the files of the full run.
    """
    from refbench.tasks.kitmus.resources import load_resources
    from refbench.tasks.kitmus.suite import generate_suite, make_config

    cfg = make_config(
        variants=split_list(variants), entities=parse_ints(entities, "--entities"),
        splits=split_list(splits), formats=split_list(formats), sizes=parse_sizes(sizes),
        seed=seed,
    )
    res = load_resources(resources)
    n_workers = workers if workers > 0 else (os.cpu_count() or 1)
    start = time.perf_counter()
    stats = generate_suite(res, out, cfg, workers=n_workers, overwrite=overwrite,
                           progress=not quiet and not as_json)
    elapsed = time.perf_counter() - start
    if as_json:
        print_json(stats)
        return
    _print_summary(stats, out, elapsed)


def _print_summary(stats: dict[str, Any], out: Path, elapsed: float) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    cfg = stats["config"]
    table = Table(title=f"KITMUS suite in {out} ({stats['instances']} instances, "
                        f"{elapsed:.1f} s)")
    table.add_column("variant", no_wrap=True)
    for n in cfg["entities"]:
        table.add_column(f"{n} entities", justify="right")
    rows: dict[str, dict[int, int]] = {}
    for job in stats["jobs"]:
        rows.setdefault(job["variant"], {}).setdefault(job["n_entities"], 0)
        rows[job["variant"]][job["n_entities"]] += job["instances"]
    for variant, per_n in rows.items():
        table.add_row(variant, *(str(per_n.get(n, 0)) for n in cfg["entities"]))
    console.print(table)
    console.print("splits: " + ", ".join(f"{s} {cfg['sizes'][s]}" for s in cfg["splits"])
                  + " per subtask; formats: " + ", ".join(cfg["formats"]))
    console.print("pronouns: " + ", ".join(f"{k} {v:.1%}"
                                           for k, v in stats["pronoun_distribution"].items()))
    shared = stats["resources"]["shared_between_splits"]
    console.print("splits disjoint (names, occupations, locations, templates, noise): "
                  + ("NO: see stats.json" if not stats["split_overlap_ok"] else
                     "yes" if not shared else
                     "yes, except pools too small to split, shared by every split: "
                     + ", ".join(shared)))
    console.print(f"datasheet: {out / 'DATASHEET.md'}")


@kitmus.command(context_settings=CONTEXT, epilog=(
    "Examples: refbench kitmus validate kitmus-suite  |  refbench kitmus validate "
    "../shared/data/kitmus-official/released --json"))
@click.argument("directory", type=PATH)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--max-shown", type=int, default=20, show_default=True,
              help="Violations listed in the summary.")
def validate(directory: Path, as_json: bool, max_shown: int) -> None:
    """Re-check a generated suite (refbench's or the official release): every file present and
    holding every instance, every format and view agreeing on every answer, annotations well
    formed (the pronoun found from structure, never spelling), split overlaps (pools too small to
    split are notes), answer balance. Exit code 1 on violations.
    """
    from refbench.tasks.kitmus.validate import validate_suite

    report = validate_suite(directory, progress=not as_json)
    if as_json:
        print_json(report)
    else:
        click.echo(f"checked {report['files']} files, {report['instances']} instances in "
                   f"{report['subtasks']} subtasks")
        for name, result in report["checks"].items():
            click.echo(f"  {name:32s} {result}")
        for note in report["notes"]:
            click.echo(f"  note: {note}")
        for v in report["violations"][:max_shown]:
            click.echo(f"  VIOLATION {v}")
        extra = len(report["violations"]) - max_shown
        if extra > 0:
            click.echo(f"  ... and {extra} more (use --json)")
        click.echo("OK" if report["ok"] else f"{len(report['violations'])} violation(s)")
    if not report["ok"]:
        raise SystemExit(1)


@kitmus.command("build-resources", context_settings=CONTEXT,
                epilog="Example: refbench kitmus build-resources --out my-resources --seed 0")
@click.option("--out", type=PATH, required=True, help="Folder for the resource files.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the fictional-word generators.")
@click.option("--overwrite", is_flag=True, help="Replace a non-empty --out.")
@click.option("--json", "as_json", is_flag=True, help="Print the build report as JSON.")
def build_resources_cmd(out: Path, seed: int, overwrite: bool, as_json: bool) -> None:
    """Rebuild the built-in resource pools from their sources, reproducibly.

    Census surnames minus first names (package `names`), POS-tagged occupations, locations and
    noise (spaCy), and fictional occupations and situations from a character-level language
    model trained on reversed English words (package `wordfreq`). Needs `refbench[resources]`.
    The shipped pools are the output of this command with --seed 0.
    """
    from refbench.tasks.kitmus.build import build_resources

    report = build_resources(out, seed=seed, overwrite=overwrite)
    if as_json:
        print_json(report)
    else:
        for key, value in report.items():
            click.echo(f"{key}: {value}")
