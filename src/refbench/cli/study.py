"""``refbench study``: create, serve, export and measure human studies."""

from __future__ import annotations

from pathlib import Path

import click

from refbench.core.commands import CONTEXT, OUT_ANY, PATH, print_json
from refbench.core.help_text import FilledCommand, examples, or_list


def _study_types() -> str:
    from refbench.studies.kinds import study_kinds

    return or_list(study_kinds())


class StudyTypes(click.Group):
    """``study create``: one command per study type the registered tasks bring (each type's
    own :meth:`~refbench.studyfile.kinds.StudyHooks.create_command`), loaded when asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        from refbench.studies.kinds import study_kinds

        return list(study_kinds())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        from refbench.studies.kinds import kind_class, study_kinds

        if cmd_name not in study_kinds():
            return None
        command: click.Command = kind_class(cmd_name).create_command()
        return command


@click.group(context_settings=CONTEXT, epilog=(
    examples(
        "refbench study create kitmus-validation --data kitmus-suite --n 40 --out "
        "kitmus.sqlite",
        "refbench study serve kitmus.sqlite  # needs: a browser (annotators answer "
        "there); serves until Ctrl-C")))
def study() -> None:
    """Human studies of the registered tasks: create, serve, export, measure agreement
    (refbench study create --help lists the study types)."""


@study.group(cls=StudyTypes, context_settings=CONTEXT, epilog=(
    examples(
        "refbench study create tne-annotation --data "
        "../shared/data/tne/dev-v1.1.jsonl.gz --n 10 --out tne.sqlite")))
def create() -> None:
    """Make a study file (SQLite) with its items, annotators and tokens."""


@study.command(context_settings=CONTEXT, epilog=examples(
    "refbench study serve kitmus.sqlite --port 8010  # needs: a browser; serves "
    "until Ctrl-C"))
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
    from refbench.web.study.server import is_loopback, links
    from refbench.web.study.server import serve as run_server

    if not is_loopback(host):
        click.echo(f"warning: listening on {host}: anyone who can reach it and has a link can "
                   "answer", err=True)

    def ready(base: str) -> None:
        click.echo(f"serving {study_file} at {base} (Ctrl-C stops; answers are already saved)")
        for name, url in links(study_file, base):
            click.echo(f"  {name:12s} {url}")

    run_server(study_file, host=host, port=port, trusted_hosts=trusted_hosts, on_ready=ready)


@study.command(cls=FilledCommand, fills={"study_types": _study_types}, context_settings=CONTEXT,
               epilog=(
    examples(
        "refbench study export kitmus.sqlite --format csv --out answers.csv",
        "refbench study export ae.sqlite --format native --out collected/")))
@click.argument("study_file", type=PATH)
@click.option("--format", "fmt", default="csv", show_default=True, help="csv, json or native.")
@click.option("--out", type=OUT_ANY, default=None,
              help="File (csv, json; default: stdout) or folder (native).")
def export(study_file: Path, fmt: str, out: Path | None) -> None:
    """Answers as item,annotator,label CSV, everything as JSON, or the data format of the
    study's task (native: data files refbench run reads, from every study type: {study_types})."""
    from refbench.public.studies import export_study

    text, files = export_study(study_file, fmt=fmt, out=out)
    if text is not None:
        click.echo(text, nl=False)
    for f in files:
        click.echo(f"wrote {f}", err=True)


@study.command(context_settings=CONTEXT, epilog=(
    examples(
        "refbench study agreement kitmus.sqlite  # each annotator's progress; the agreement "
        "once answers come in (refbench study serve)",
        "refbench study agreement answers.csv --json  # needs: answers exported with "
        "refbench study export --format csv")))
@click.argument("source", type=PATH)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def agreement(source: Path, as_json: bool) -> None:
    """Fleiss' kappa, Krippendorff's alpha, percent agreement, majorities and accuracy per
    condition; for TNE, pairwise CoNLL coreference F1 and link F1 / IPrep-Acc."""
    from refbench.public.studies import agreement as study_agreement
    from refbench.studies.report import format_report

    report = study_agreement(source)
    if as_json:
        print_json(report)
        return
    for line in format_report(report):
        click.echo(line)
