"""``refbench study``: create, serve, export and measure human studies."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from refbench.cli.common import (
    CONTEXT,
    COUNT,
    DATA,
    OUT_ANY,
    OUT_FILE,
    PATH,
    POSITIVE,
    SEED,
    print_json,
    split_list,
)
from refbench.core.inputs import format_name

ANNOTATORS_HELP = "How many annotators (ann1..annN), or their names: alice,bob."
OVERLAP_HELP = "Annotators per item (default: every annotator answers every item)."


@click.group(context_settings=CONTEXT, epilog=(
    "Example: refbench study create kitmus-validation --data kitmus-suite --n 40 --out "
    "kitmus.sqlite && refbench study serve kitmus.sqlite"))
def study() -> None:
    """Human studies: KITMUS validation, AltEntities expression collection, TNE annotation."""


@study.group(context_settings=CONTEXT, epilog=(
    "Example: refbench study create tne-annotation --data ../shared/data/tne/dev-v1.1.jsonl.gz "
    "--n 10 --out tne.sqlite"))
def create() -> None:
    """Make a study file (SQLite) with its items, annotators and tokens."""


def _report(created: object, as_json: bool) -> None:
    from refbench.studies.create import CreatedStudy

    assert isinstance(created, CreatedStudy)
    info = {"study": str(created.path), "kind": created.kind, "items": created.n_items,
            "annotators": [n for n, _ in created.annotators], **created.summary}
    for w in created.warnings:
        click.secho(f"WARNING: {w}", err=True, fg="yellow", bold=True)
    if created.warnings:
        info["warnings"] = created.warnings
    if as_json:
        print_json(info)
        return
    click.echo(f"wrote {created.path}: {created.kind}, {created.n_items} items, "
               f"{len(created.annotators)} annotators")
    for key, value in created.summary.items():
        if key != "items":
            click.echo(f"  {key}: {value}")
    click.echo(f"serve it with: refbench study serve {created.path}")


F = TypeVar("F", bound=Callable[..., Any])


def _common(f: F) -> F:
    """The options every ``study create`` command shares."""
    for opt in reversed([
        click.option("--annotators", default="3", show_default=True, help=ANNOTATORS_HELP),
        click.option("--overlap", type=POSITIVE, default=None, help=OVERLAP_HELP),
        click.option("--seed", type=SEED, default=0, show_default=True),
        click.option("--out", type=OUT_FILE, required=True, help="The study file to write."),
        click.option("--overwrite", is_flag=True, help="Replace an existing study file."),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object."),
    ]):
        f = opt(f)
    return f


@create.command("kitmus-validation", context_settings=CONTEXT, epilog=(
    "Examples: refbench study create kitmus-validation --data kitmus-suite --n 40 --out k.sqlite"
    "  |  refbench study create kitmus-validation --data ../shared/data/kitmus-official/released/"
    "background-train/subtask_2_ents/full-text/test.v4_gold_conll.gz --n 20 --annotators 6 "
    "--out k.sqlite"))
@click.option("--data", type=DATA, multiple=True, required=True,
              help="A KITMUS suite folder or any choice data file refbench reads (repeatable).")
@click.option("--n", "n", type=POSITIVE, default=40, show_default=True,
              help="Instances to ask about.")
@click.option("--conditions", default="with-knowledge,without-knowledge", show_default=True,
              help="Show the knowledge text (with-knowledge), leave it out, or both.")
@click.option("--gold-checks", type=COUNT, default=4, show_default=True,
              help="Extra flagged items with the knowledge text, to check attention.")
@click.option("--split", default="test", show_default=True, help="Split, for a suite folder.")
@_common
def create_kitmus(data: tuple[Path, ...], n: int, conditions: str, gold_checks: int, split: str,
                  annotators: str, overlap: int | None, seed: int, out: Path, overwrite: bool,
                  as_json: bool) -> None:
    """Multiple choice (the entity names plus "can't say"), with and without the knowledge
    text, stratified over the suite's variants and entity counts (paper, section 4.4)."""
    from refbench.studies.create import annotator_names
    from refbench.studies.kitmus import create_kitmus_study

    created = create_kitmus_study(
        list(data), out, n=n, conditions=split_list(conditions) or [], gold_checks=gold_checks,
        annotators=annotator_names(annotators), seed=seed, split=split, overlap=overlap,
        overwrite=overwrite, progress=not as_json)
    _report(created, as_json)


@create.command("altentities-collection", context_settings=CONTEXT, epilog=(
    "Example: refbench study create altentities-collection --data ../shared/data/altentities/"
    "books/test.json.gz --n 50 --method similar-description --annotators 2 --out ae.sqlite"))
@click.option("--data", type=DATA, multiple=True, required=True,
              help="Entities JSONL or AltEntities JSON files (repeatable).")
@click.option("--n", "n", type=POSITIVE, default=50, show_default=True, help="Questions to ask.")
@click.option("--method", default="uniform", show_default=True, help="uniform, same-name, "
              "similar-title, similar-description, similar-infobox (as sample-pairs).")
@click.option("--domain", default=None, help="Only entities of this domain.")
@click.option("--attributes", default=None, help="Infobox attributes for similar-infobox.")
@click.option("--memory-recall/--no-memory-recall", default=True, show_default=True,
              help="Hide the descriptions while writing (the paper's final design).")
@_common
def create_altentities(data: tuple[Path, ...], n: int, method: str, domain: str | None,
                       attributes: str | None, memory_recall: bool, annotators: str,
                       overlap: int | None, seed: int, out: Path, overwrite: bool,
                       as_json: bool) -> None:
    """Expression collection: the cartoon dialogue, the target marked, its description, and
    3 to 5 indirect expressions per item (paper, section 3)."""
    from refbench.studies.altentities import create_altentities_study
    from refbench.studies.create import annotator_names

    created = create_altentities_study(
        list(data), out, n=n, method=method, domain=domain, attributes=split_list(attributes),
        annotators=annotator_names(annotators), seed=seed, overlap=overlap,
        memory_recall=memory_recall, overwrite=overwrite)
    _report(created, as_json)


@create.command("tne-annotation", context_settings=CONTEXT, epilog=(
    "Examples: refbench study create tne-annotation --data ../shared/data/tne/dev-v1.1.jsonl.gz "
    "--n 10 --out tne.sqlite  |  refbench study create tne-annotation --data stories/ --n 5 "
    "--out tne.sqlite"))
@click.option("--data", type=DATA, required=True, help="A TNE file (its NPs), or texts: a .txt "
              "file, a folder of .txt files, or JSONL with id and text (NPs from the chunker).")
@click.option("--n", "n", type=POSITIVE, default=10, show_default=True, help="Documents.")
@_common
def create_tne(data: Path, n: int, annotators: str, overlap: int | None, seed: int, out: Path,
               overwrite: bool, as_json: bool) -> None:
    """Two-stage NP annotation: coreference chains, then a preposition (or none) from each NP
    to each chain (paper, section 4)."""
    from refbench.studies.create import annotator_names
    from refbench.studies.tne import create_tne_study

    created = create_tne_study(data, out, n=n, annotators=annotator_names(annotators),
                               seed=seed, overlap=overlap, overwrite=overwrite)
    _report(created, as_json)


@study.command(context_settings=CONTEXT, epilog="Example: refbench study serve kitmus.sqlite "
               "--port 8010")
@click.argument("study_file", type=PATH)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Interface to listen on (loopback unless you mean otherwise).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="0 picks a free port.")
@click.option("--trusted-host", "trusted_hosts", multiple=True, metavar="NAME",
              help="Another host name to answer to (the public name a reverse proxy forwards, "
                   "see docs/howto/serve-study-behind-proxy.md); repeatable.")
def serve(study_file: Path, host: str, port: int, trusted_hosts: tuple[str, ...]) -> None:
    """Serve a study: prints one link per annotator (their token is in it) and the admin link.
    Every answer is written to the study file as it is given."""
    from refbench.studies.server import is_loopback, links
    from refbench.studies.server import serve as run_server

    if not is_loopback(host):
        click.echo(f"warning: listening on {host}: anyone who can reach it and has a link can "
                   "answer", err=True)

    def ready(base: str) -> None:
        click.echo(f"serving {study_file} at {base} (Ctrl-C stops; answers are already saved)")
        for name, url in links(study_file, base):
            click.echo(f"  {name:12s} {url}")

    run_server(study_file, host=host, port=port, trusted_hosts=trusted_hosts, on_ready=ready)


@study.command(context_settings=CONTEXT, epilog=(
    "Examples: refbench study export kitmus.sqlite --format csv --out answers.csv  |  "
    "refbench study export ae.sqlite --format native --out collected/"))
@click.argument("study_file", type=PATH)
@click.option("--format", "fmt", default="csv", show_default=True, help="csv, json or native.")
@click.option("--out", type=OUT_ANY, default=None,
              help="File (csv, json; default: stdout) or folder (native).")
def export(study_file: Path, fmt: str, out: Path | None) -> None:
    """Answers as item,annotator,label CSV, everything as JSON, or the task's own format
    (KITMUS gold + answers JSONL, AltEntities JSON, TNE v1.1 JSONL) for refbench run."""
    from refbench.studies.export import export as do_export

    text, files = do_export(study_file, fmt, out)
    if text is not None:
        click.echo(text, nl=False)
    for f in files:
        click.echo(f"wrote {f}", err=True)


@study.command(context_settings=CONTEXT, epilog=(
    "Examples: refbench study agreement kitmus.sqlite  |  refbench study agreement answers.csv "
    "--json"))
@click.argument("source", type=PATH)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def agreement(source: Path, as_json: bool) -> None:
    """Fleiss' kappa, Krippendorff's alpha, percent agreement, majorities and accuracy per
    condition; for TNE, pairwise CoNLL coreference F1 and link F1 / IPrep-Acc."""
    from refbench.studies.report import csv_agreement, format_report, study_agreement

    name = format_name(source)
    report = csv_agreement(source) if name.endswith(".csv") else study_agreement(source)
    if as_json:
        print_json(report)
        return
    for line in format_report(report):
        click.echo(line)
