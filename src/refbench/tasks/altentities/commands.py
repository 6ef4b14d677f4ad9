"""``refbench altentities``: check files, the cross-domain matrix, and sampling new questions."""

from __future__ import annotations

from pathlib import Path

import click

from refbench.core.commands import CONTEXT, DATA, OUT_FILE, PATH, POSITIVE, SEED, print_json
from refbench.core.help_text import examples
from refbench.tasks.capabilities import CommandServices


@click.group(context_settings=CONTEXT, epilog=examples(
    "refbench altentities check ../shared/data/altentities/*/*.json.gz"))
def altentities() -> None:
    """AltEntities: statistics and leakage, cross-domain results, new alternative questions."""


@altentities.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench altentities check ../shared/data/altentities/recipes/dev.json.gz "
        "../shared/data/altentities/recipes/test.json.gz --json")))
@click.argument("files", type=DATA, nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def check(files: tuple[Path, ...], as_json: bool) -> None:
    """Statistics per file (questions, expressions, words per expression, domains, sampling
    methods) and leakage: entities that occur in more than one split."""
    from refbench.tasks.altentities.check import check_files

    report = check_files(list(files))
    if as_json:
        print_json(report)
        return
    click.echo(f"{'file':58s} {'split':6s} {'questions':>9s} {'expressions':>11s} "
               f"{'per q':>6s} {'words':>6s}")
    for f in report["files"]:
        click.echo(f"{f['file'][-58:]:58s} {f['split']:6s} {f['questions']:9d} "
                   f"{f['expressions']:11d} {f['expressions_per_question']:6.2f} "
                   f"{f['words_per_expression']:6.2f}")
        click.echo("    methods: " + ", ".join(f"{k} {v}" for k, v in
                                              f["sampling_methods"].items()))
    if not report["leakage"]:
        click.echo("leakage: none (no entity occurs in two splits)")
    for domain, leak in report["leakage"].items():
        click.echo(f"leakage {domain}: {leak['entities']} entities in several splits "
                   f"({', '.join(f'{k}: {v}' for k, v in leak['by_splits'].items())}); e.g. "
                   + "; ".join(leak["examples"][:5]))


@altentities.command("sample-pairs", context_settings=CONTEXT, epilog=(
    examples(
        "refbench altentities sample-pairs "
        "../shared/data/altentities/recipes/dev.json.gz --method similar-infobox --n 20 "
        "--out questions.jsonl")))
@click.argument("entities", type=DATA, nargs=-1, required=True)
@click.option("--method", required=True, help="uniform, same-name, similar-title, "
              "similar-description, similar-infobox.")
@click.option("--n", "n", type=POSITIVE, default=50, show_default=True,
              help="Questions to write.")
@click.option("--domain", default=None, help="Only entities of this domain.")
@click.option("--attributes", default=None, help="Infobox attributes, e.g. genre,artist.")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--out", type=OUT_FILE, default=None, help="JSONL output (default: stdout).")
def sample_pairs_cmd(entities: tuple[Path, ...], method: str, n: int, domain: str | None,
                     attributes: str | None, seed: int, out: Path | None) -> None:
    """Sample entity pairs and write alternative questions ("Do you mean 'A' or 'B'?") with a
    domain opening utterance, ready for annotation. ENTITIES: JSONL with name, description,
    infobox (and domain), or AltEntities JSON files whose choices are used."""
    import json

    from refbench.tasks.altentities.sampling import load_entities, sample_pairs, write_pairs

    ents = load_entities(list(entities), domain=domain)
    attrs = [a.strip() for a in attributes.split(",")] if attributes else None
    items = sample_pairs(ents, method=method, n=n, seed=seed, attributes=attrs)
    if out is None:
        for item in items:
            click.echo(json.dumps(item, ensure_ascii=False))
    else:
        click.echo(f"wrote {write_pairs(items, out)} questions to {out}", err=True)


def commands(services: CommandServices) -> list[click.Command]:
    """``refbench altentities``; ``matrix`` reads runs through ``services``."""

    @altentities.command(context_settings=CONTEXT, epilog=(
        examples(
            "refbench altentities matrix runs/ce-books-on-* runs/ce-mixed-on-*  # needs: "
            "runs of models trained on each domain (refbench train, refbench run --out "
            "runs/ce-DOMAIN-on-TEST)",
            "refbench altentities matrix --from-store --json  # needs: those runs in the "
            "results store")))
    @click.argument("runs", type=PATH, nargs=-1)
    @click.option("--from-store", is_flag=True, help="Use every AltEntities run in the store.")
    @click.option("--store", type=PATH, default=None, help="Results store.")
    @click.option("--format", "fmt", default="md", show_default=True, help="md, latex, html, csv.")
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
    def matrix(runs: tuple[Path, ...], from_store: bool, store: Path | None, fmt: str,
               as_json: bool) -> None:
        """The cross-domain matrix (Table 8): trained on a domain or mixed (rows), tested on each
        domain (columns), from run folders (refbench run --out) or the results store."""
        from refbench.core.errors import UsageError
        from refbench.tasks.altentities.matrix import load_run_metrics, matrix_from_metrics

        if from_store:
            metrics = services.stored_metrics(store, "altentities")
        elif runs:
            metrics = load_run_metrics(list(runs))
        else:
            raise UsageError("give run folders or --from-store")
        result = matrix_from_metrics(metrics)
        if as_json:
            print_json(result)
            return
        header = ["trained on", *result["columns"]]
        rows = [[name, *(f"{cells[c]['accuracy']:.3f}" if c in cells else "-"
                         for c in result["columns"])] for name, cells in result["rows"].items()]
        click.echo(services.render_table(header, rows, fmt, title="accuracy by test domain"),
                   nl=False)

    return [altentities]
