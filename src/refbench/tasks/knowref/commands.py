"""``refbench knowref``: antecedent switching, augmentation, gender-cue removal, mining."""

from __future__ import annotations

import json
from pathlib import Path

import click

from refbench.core.commands import (
    CONTEXT,
    DATA,
    OUT_FILE,
    PATH,
    POSITIVE,
    SEED,
    print_json,
    transactional,
)
from refbench.core.help_text import examples
from refbench.tasks.capabilities import CommandServices


@click.group(context_settings=CONTEXT, epilog=examples(
    "refbench knowref switch ../shared/data/knowref/knowref_test.json --out "
    "test.switched.json"))
def knowref() -> None:
    """KnowRef: check files, switch candidates, augment training data, remove gender cues, mine
    corpora."""


def _report(report: dict, as_json: bool, keys: tuple[str, ...]) -> None:  # type: ignore[type-arg]
    if as_json:
        print_json(report)
        return
    for k in keys:
        click.echo(f"{k}: {report[k]}")


@knowref.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench knowref check ../shared/data/knowref/knowref_test.json",
        "refbench knowref check ../shared/data/knowref/*.tsv "
        "../shared/data/knowref/*.json --json")))
@click.argument("files", type=DATA, nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (every id).")
def check(files: tuple[Path, ...], as_json: bool) -> None:
    """What each KnowRef file holds and where it contradicts itself: instances against the
    published counts, pronouns, gold fields that disagree (refbench takes correct_candidate, the
    name, over correct_candidate_idx; every disagreeing instance is listed), identical
    candidates, several bracketed pronouns, candidates not in the sentence, unlabelled pairs."""
    from refbench.tasks.knowref.check import EXAMPLES, check_files

    report = check_files(list(files))
    if as_json:
        print_json(report)
        return
    for f in report["files"]:
        pub = f["published"]
        against = (f" (published {pub['expected']}: {'ok' if pub['ok'] else 'DIFFERENT'})"
                   if pub else "")
        click.echo(f"{f['file']}: {f['format']}, {f['instances']} instances{against}")
        if f["format"] == "json":
            click.echo("  pronouns: " + ", ".join(f"{k} {v}" for k, v in f["pronouns"].items()))
            click.echo("  gold taken from: " + ", ".join(f"{k} {v}" for k, v in
                                                       f["gold_source"].items()))
            click.echo(f"  correct_candidate_idx disagrees with correct_candidate (the name) in "
                       f"{f['gold_disagreements']} instances; refbench uses the name:")
            for d in f["gold_disagreement_instances"][:EXAMPLES]:
                click.echo(f"    instance {d['index']}: idx {d['correct_candidate_idx']} names "
                           f"{d['index_names']!r}, correct_candidate is "
                           f"{d['correct_candidate']!r}: {d['sentence']}")
            rest = f["gold_disagreements"] - EXAMPLES
            if rest > 0:
                click.echo(f"    ... and {rest} more (--json lists every id)")
            click.echo(f"  identical candidates: {f['identical_candidates'] or 'none'}")
            click.echo(f"  several bracketed pronouns: {f['several_bracketed_pronouns'] or 'none'}")
            absent = f["candidates_not_in_sentence"]
        else:
            click.echo(f"  labelled pairs {f['labelled']}, unlabelled {f['unlabelled']}")
            click.echo(f"  pairs with several blanks: {f['several_blanks'] or 'none'}")
            absent = f["candidates_not_in_text"]
        click.echo(f"  candidates not found as whole words: {len(absent)}"
                   + ("" if not absent else " (" + "; ".join(
                       f"instance {a['index']}: {a['text']!r}" for a in absent[:EXAMPLES]) + ")"))


@knowref.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench knowref switch ../shared/data/knowref/knowref_test.json --out "
        "switched.json",
        "refbench knowref switch ../shared/data/knowref/test.tsv --out switched.tsv "
        "--json")))
@click.argument("src", type=DATA)
@click.option("--out", type=OUT_FILE, required=True, help="Output in the input's format.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def switch(src: Path, out: Path, as_json: bool) -> None:
    """Swap the two candidates everywhere in each sentence (whole tokens only); the answer
    flips. JSON in, JSON out; TSV in, TSV out. Instances that cannot be switched cleanly are
    listed with the reason, never mangled."""
    from refbench.tasks.knowref.switch import switch_file

    report = switch_file(src, out)
    _report(report, as_json, ("instances", "switched", "skipped", "output"))
    if not as_json:
        for s in report["skipped_instances"]:
            click.echo(f"  not switched: instance {s['index']}: {s['reason']}")


@knowref.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench knowref augment ../shared/data/knowref/train.tsv --out train.aug.tsv")))
@click.argument("train", type=DATA)
@click.option("--out", type=OUT_FILE, required=True, help="Original + switched, input's format.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def augment(train: Path, out: Path, as_json: bool) -> None:
    """The paper's antecedent-switching augmentation: every instance plus its switched copy."""
    from refbench.tasks.knowref.switch import switch_file

    report = switch_file(train, out, with_original=True)
    _report(report, as_json, ("instances", "switched", "skipped", "output"))


@knowref.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench knowref neutralize candidates.jsonl --out labelled.jsonl --seed 0  # "
        "needs: what refbench knowref mine wrote")))
@click.argument("src", type=PATH)
@click.option("--out", type=OUT_FILE, required=True, help="Labelled, neutralised records.")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def neutralize(src: Path, out: Path, seed: int, as_json: bool) -> None:
    """Label by gender (census first names) and replace one name with a frequent name of the
    pronoun's gender, whole tokens only. Input: KnowRef JSON or JSONL records (mine output);
    output in the same format. Reports labelled / skipped / ambiguous."""
    from refbench.tasks.knowref.neutralize import neutralize_file

    report = neutralize_file(src, out, seed=seed)
    _report(report, as_json, ("instances", "labelled", "skipped", "ambiguous", "reasons"))


@knowref.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench knowref mine reddit.jsonl.bz2 --out candidates.jsonl --workers 2  # "
        "needs: a corpus (a Reddit dump: JSONL, one comment a line)",
        "refbench knowref mine wiki.txt.gz --out c.jsonl --engine dask --scheduler "
        "tcp://127.0.0.1:8786  # needs: a corpus and a running Dask scheduler")))
@click.argument("inputs", type=DATA, nargs=-1, required=True)
@click.option("--out", type=OUT_FILE, required=True, help="Candidate records (JSONL).")
@click.option("--engine", default="local", show_default=True, help="local or dask.")
@click.option("--workers", type=POSITIVE, default=1, show_default=True,
              help="Processes (local engine) or the chunk window (dask).")
@click.option("--scheduler", default=None, help="Dask scheduler address (engine dask).")
@click.option("--field", default=None, help="JSONL text field (default: body, text, ...).")
@click.option("--chunk-size", type=POSITIVE, default=200, show_default=True,
              help="Records per unit of work.")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--funnel", type=OUT_FILE, default=None, help="Also write the funnel report here.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@transactional
def mine(inputs: tuple[Path, ...], out: Path, engine: str, workers: int, scheduler: str | None,
         field: str | None, chunk_size: int, seed: int, funnel: Path | None,
         as_json: bool) -> None:
    """Mine Winograd-like sentences: clean-up, sentence split, 9-33 tokens, uppercase start,
    no math, one connective cluster with two non-stopwords before it and a pronoun only after
    it, exactly two noun phrases before it that do not recur after it, both persons; then
    gender labels and gender-cue removal. Prints each stage's pass count (the funnel)."""
    from refbench.core.io import write_text_atomic
    from refbench.tasks.knowref.mine import mine as run_mine

    report = run_mine(list(inputs), out, engine=engine, workers=workers, scheduler=scheduler,
                      field=field, chunk_size=chunk_size, seed=seed, progress=not as_json)
    if funnel is not None:
        write_text_atomic(funnel, json.dumps(report, indent=2) + "\n")
    if as_json:
        print_json(report)
        return
    for stage, n in report["funnel"].items():
        click.echo(f"  {stage:20s} {n}")
    click.echo(f"candidates: {report['candidates']} (undecodable records skipped: "
               f"{report['undecodable']}) -> {out}")


@knowref.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench knowref convert ../shared/data/knowref/knowref_test.json test.tsv")))
@click.argument("src", type=DATA)
@click.argument("dst", type=OUT_FILE)
def convert(src: Path, dst: Path) -> None:
    """Convert between knowref_test.json-style JSON and the substitution TSV (either way)."""
    from refbench.tasks.knowref.read import read_knowref
    from refbench.tasks.knowref.write import write_knowref

    n = write_knowref(read_knowref(src), dst)
    click.echo(f"wrote {n} instances to {dst}")


def commands(services: CommandServices) -> list[click.Command]:
    """``refbench knowref``."""
    return [knowref]
