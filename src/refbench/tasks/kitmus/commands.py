"""``refbench kitmus``: generate, validate and rebuild the KITMUS test suite; ``refbench convert``
(also ``refbench kitmus convert``): KITMUS-style data between CoNLL-2012, jsonlines, GAP TSV
and text."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import click

from refbench.core.commands import (
    CONTEXT,
    COUNT,
    DATA,
    OUT_DIR,
    OUT_FILE,
    SEED,
    parse_ints,
    parse_sizes,
    print_json,
    split_list,
)
from refbench.core.help_text import FilledOption, examples, or_list
from refbench.tasks.capabilities import CommandServices


def _formats() -> str:
    from refbench.tasks.kitmus.registries import KITMUS_FORMATS

    return ",".join(KITMUS_FORMATS.names())


def _targets() -> str:
    from refbench.tasks.kitmus.convert import TARGETS

    return or_list(TARGETS)


def _views() -> str:
    from refbench.tasks.kitmus.instance import VIEWS

    return ", ".join(VIEWS)


FILLS = {"formats": _formats, "targets": _targets, "views": _views}


@click.group(context_settings=CONTEXT, epilog=examples(
    "refbench kitmus generate --out suite --variants background-pretrain --splits test "
    "--sizes test=200"))
def kitmus() -> None:
    """KITMUS: generate, validate and rebuild the knowledge-integration test suite."""


@kitmus.command(context_settings=CONTEXT, epilog=examples(
    "refbench kitmus generate --sizes 40  # kitmus-suite/; the default sizes: minutes",
    "refbench kitmus generate --out small --entities 2 --splits test --sizes test=50 "
    "--formats jsonl,conll",
    "refbench kitmus generate --out official --resources "
    "../shared/data/kitmus-official/resources --splits test --sizes test=100"))
@click.option("--out", type=OUT_DIR, default=Path("kitmus-suite"), show_default=True,
              help="Output folder.")
@click.option("--resources", type=DATA, default=None,
              help="Resource folder (refbench or official KITMUS layout). Default: built-in.")
@click.option("--variants", help="Comma-separated variant names (see refbench ls variants).")
@click.option("--entities", help="Subtasks, e.g. 2,3,4.")
@click.option("--splits", help="train,validation,test")
@click.option("--formats", cls=FilledOption, fills=FILLS,
              help="{formats} (default: all; refbench ls formats).")
@click.option("--sizes", help="Instances per split: train=2000,validation=400,test=2000, or one "
                              "number for all.")
@click.option("--seed", type=SEED, default=42, show_default=True,
              help="Random seed: same seed, same bytes.")
@click.option("--workers", type=COUNT, default=0, help="Processes (0: one per CPU core).")
@click.option("--overwrite", is_flag=True, help="Replace a non-empty --out.")
@click.option("--skip-if-current", is_flag=True,
              help="Do nothing when --out already holds this suite (same configuration, seed, "
                   "resources, refbench version and generator code).")
@click.option("--json", "as_json", is_flag=True, help="Print stats.json instead of a summary.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--no-probe", is_flag=True,
              help="Leave the MiniLM similarity probe out of DATASHEET.md (it loads MiniLM).")
def generate(out: Path, resources: Path | None, variants: str | None, entities: str | None,
             splits: str | None, formats: str | None, sizes: str | None, seed: int,
             workers: int, overwrite: bool, skip_if_current: bool, as_json: bool,
             quiet: bool, no_probe: bool) -> None:
    """Generate the KITMUS suite: 8 variants x 2/3/4 entities x train/validation/test.

    Writes every official view and format plus refbench's native JSONL, DATASHEET.md and
    stats.json. Deterministic: the same seed and resources give byte-identical files, and a
    subset (--variants/--entities/--splits) gives exactly the files of the full run.
    """
    from refbench.tasks.kitmus.generate.resources import load_resources
    from refbench.tasks.kitmus.generate.suite import generate_suite, make_config

    cfg = make_config(
        variants=split_list(variants), entities=parse_ints(entities, "--entities"),
        splits=split_list(splits), formats=split_list(formats), sizes=parse_sizes(sizes),
        seed=seed,
    )
    res = load_resources(resources)
    if skip_if_current and out.is_dir():
        from refbench.tasks.kitmus.generate.suite import stale_reason

        reason = stale_reason(out, res, cfg)
        if reason is None:
            if as_json:
                click.echo((out / "stats.json").read_text(encoding="utf-8").strip())
                return
            click.echo(f"{out} is up to date (same configuration, resources and generator); "
                       "not regenerated")
            return
        click.echo(f"{out} is out of date ({reason}); regenerating", err=True)
    n_workers = workers if workers > 0 else (os.cpu_count() or 1)
    start = time.perf_counter()
    stats = generate_suite(res, out, cfg, workers=n_workers, overwrite=overwrite,
                           progress=not quiet and not as_json, probe=not no_probe)
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
                     "not checked (one split generated: nothing to compare it with)"
                     if len(cfg["splits"]) < 2 else
                     "yes" if not shared else
                     "yes, except pools too small to split, shared by every split: "
                     + ", ".join(shared)))
    console.print(f"datasheet: {out / 'DATASHEET.md'}")


@kitmus.command(context_settings=CONTEXT, epilog=examples(
    "refbench kitmus validate kitmus-suite",
    "refbench kitmus validate ../shared/data/kitmus-official/released/background-both --json"))
@click.argument("directory", type=DATA)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--max-shown", type=COUNT, default=20, show_default=True,
              help="Violations listed in the summary.")
def validate(directory: Path, as_json: bool, max_shown: int) -> None:
    """Re-check a generated suite (refbench's or the official release): every file present and
    holding every instance, every format and view agreeing on every answer, annotations well
    formed (the pronoun found from structure, never spelling), split overlaps (pools too small to
    split are notes), answer balance (a position baseline whose 95% interval excludes chance
    fails). Exit code 1 on violations: the whole official release exits 1, on its
    background-train 3-entity test split (first 0.3065, interval 0.287-0.327).
    """
    from refbench.tasks.kitmus.generate.validate import validate_suite

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
                epilog=examples("refbench kitmus build-resources --out my-resources --seed 0"))
@click.option("--out", type=OUT_DIR, required=True, help="Folder for the resource files.")
@click.option("--seed", type=SEED, default=0, show_default=True,
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
    from refbench.tasks.kitmus.generate.build import build_resources

    report = build_resources(out, seed=seed, overwrite=overwrite)
    if as_json:
        print_json(report)
    else:
        for key, value in report.items():
            click.echo(f"{key}: {value}")


@kitmus.command(context_settings=CONTEXT, epilog=examples(
    "refbench kitmus difficulty kitmus-suite",
    "refbench kitmus difficulty ../shared/data/kitmus-official/released --variants "
    "background-train --json"))
@click.argument("directory", type=DATA)
@click.option("--split", default="test", show_default=True, help="Split to probe.")
@click.option("--variants", help="Comma-separated variant folder names (default: all).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def difficulty(directory: Path, split: str, variants: str | None, as_json: bool) -> None:
    """Similarity-probe profile of a suite on disk (refbench's or the official release).

    For every subtask: how often MiniLM similarity between the pronoun's sentence and
    "a <occupation>" alone picks the right entity, and how often the pronoun sentence shares a
    word root with the answer's (or a distractor's) occupation. Reads full-text CoNLL (else
    native JSONL) by structure, so entities named like pronouns are no problem.
    """
    from refbench.tasks.kitmus.generate.difficulty import OFFICIAL_PROBE, suite_difficulty

    report = suite_difficulty(directory, split=split, variants=split_list(variants),
                              progress=not as_json)
    if as_json:
        print_json({"split": split, "subtasks": report,
                    "official_background_pretrain": OFFICIAL_PROBE})
        return
    from rich.console import Console
    from rich.table import Table

    ents = sorted({n for per in report.values() for n in per})
    table = Table(title=f"similarity probe, {split} split of {directory} "
                        "(accuracy; cue: answer / distractor occupation root in the sentence)")
    table.add_column("variant", no_wrap=True)
    for n in ents:
        table.add_column(f"{n} entities", justify="right")
    for variant, per in report.items():
        table.add_row(variant, *(
            f"{per[n]['probe_accuracy']:.3f} ({per[n]['answer_occupation_cue']:.0%} / "
            f"{per[n]['distractor_occupation_cue']:.0%})" if n in per else "-" for n in ents))
    console = Console()
    console.print(table)
    console.print("official KITMUS background-train test: " + " / ".join(
        f"{v:g}" for _, v in sorted(OFFICIAL_PROBE.items())) + " at "
        + " / ".join(str(n) for n in sorted(OFFICIAL_PROBE)) + " entities")


@kitmus.command("pool-difficulty", context_settings=CONTEXT, epilog=examples(
    "refbench kitmus pool-difficulty",
    "refbench kitmus pool-difficulty --resources ../shared/data/kitmus-official/resources "
    "--json"))
@click.option("--resources", type=DATA, default=None,
              help="Resource folder (refbench or official layout). Default: built-in.")
@click.option("--split-seed", type=SEED, default=None,
              help="Only the test occupations of the suite generated with this seed.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def pool_difficulty(resources: Path | None, split_seed: int | None, as_json: bool) -> None:
    """What the similarity probe makes of every real situation of a resource pool.

    Each situation goes into every pronoun template with every pronoun and is compared with
    every occupation: its mean rank, its margin over the closest other occupation, and the
    exact expected probe accuracy at 2/3/4 entities. The criterion the built-in pool was
    written to is in its PROVENANCE.md.
    """
    from refbench.tasks.kitmus.generate.difficulty import default_encoder, pool_profile
    from refbench.tasks.kitmus.generate.instances import build_pools
    from refbench.tasks.kitmus.generate.resources import load_resources

    res = load_resources(resources)
    rows = (build_pools(res, seed=split_seed).splits["test"].occupations
            if split_seed is not None else None)
    report = pool_profile(res, encoder=default_encoder(), rows=rows)
    if as_json:
        print_json(report)
        return
    click.echo(f"{report['occupations']} occupations; expected probe accuracy "
               + ", ".join(f"{n} entities {a:.3f}" for n, a in report["expected_accuracy"].items())
               + f"; closest single word {report['max_closest_word_similarity']:.3f}")
    click.echo("  4 entities  rank  margin  word  occupation: situation (closest other occupation)")
    for r in sorted(report["rows"], key=lambda r: -r["margin"]):
        click.echo(f"  {r['expected_accuracy'][4]:.3f} {r['mean_rank']:5.2f} {r['margin']:+.3f} "
                   f"{r['closest_word_similarity']:.2f}  {r['occupation']}: {r['situation']}  "
                   f"({r['nearest_other']})")


CONVERT_EXAMPLE = examples(
    "refbench convert kitmus-suite/background-both/subtask_2_ents/test.jsonl test.tsv --view "
    "task-text-only  # kitmus-suite: refbench kitmus generate",
    "refbench convert ../shared/data/kitmus-official/released/background-train/subtask_2_ents/"
    "full-text/test.v4_gold_conll.gz test.jsonlines.gz")


@click.command("convert", context_settings=CONTEXT, epilog=CONVERT_EXAMPLE)
@click.argument("src", type=DATA)
@click.argument("dst", type=OUT_FILE)
@click.option("--to", default=None, cls=FilledOption, fills=FILLS,
              help="{targets} (default: from DST).")
@click.option("--view", default="full-text", show_default=True, cls=FilledOption, fills=FILLS,
              help="For native input: {views}.")
def convert_cmd(src: Path, dst: Path, to: str | None, view: str) -> None:
    """Convert SRC (.v4_gold_conll/.conll, .jsonlines or native .jsonl, optionally .gz) into DST:
    CoNLL-2012, e2e-coref jsonlines, GAP TSV (2 entities) or text. Converted gold scores 1.0
    against the original.
    """
    from refbench.core.errors import UsageError
    from refbench.tasks.kitmus.convert import convert
    from refbench.tasks.kitmus.instance import VIEWS

    if view not in VIEWS:
        raise UsageError(f"unknown view {view!r}; choose from {', '.join(VIEWS)}")
    n = convert(src, dst, target=to, view=view)
    click.echo(f"wrote {n} documents to {dst}")


kitmus.add_command(convert_cmd)


def commands(services: CommandServices) -> list[click.Command]:
    """``refbench kitmus`` and the top-level ``refbench convert``."""
    return [kitmus, convert_cmd]
