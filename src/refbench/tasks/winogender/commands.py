"""``refbench winogender``: check a release folder (gold ids against templates), draw the
occupation figure from runs.

Built on demand through the task's commands capability, so importing the task never imports
Click."""

from __future__ import annotations

from pathlib import Path

import click

from refbench.core.commands import CONTEXT, DATA, OUT_FILE, PATH, print_json
from refbench.core.help_text import examples
from refbench.tasks.capabilities import CommandServices


def commands(services: CommandServices) -> list[click.Command]:
    @click.group("winogender", context_settings=CONTEXT, epilog=(
        examples(
            "refbench winogender check ../shared/data/winogender")))
    def winogender() -> None:
        """Winogender: check the release, draw the occupation correlation figure."""

    @winogender.command("check", context_settings=CONTEXT, epilog=(
        examples(
            "refbench winogender check ../shared/data/winogender",
            "refbench winogender check ../shared/data/winogender/all_sentences.tsv --json")))
    @click.argument("path", type=DATA)
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
    def check(path: Path, as_json: bool) -> None:
        """Counts against the paper (720 sentences, 120 templates, 60 occupations), genders,
        groups, gotcha sentences, and every sentence whose id (its gold answer) disagrees with
        its template in templates.tsv. Exit code 1 when the release is not the paper's
        (other counts, groups lacking a gender, disagreements), 2 when it cannot be read."""
        from refbench.tasks.winogender.check import check_release, check_text

        report = check_release(path)
        if as_json:
            print_json(report)
        else:
            click.echo(check_text(report))
        if not report["ok"]:
            raise SystemExit(1)

    @winogender.command("plot", context_settings=CONTEXT, epilog=(
        examples(
            "refbench run --model first --data ../shared/data/winogender --out "
            "runs/wg-first",
            "refbench run --model embedding --data ../shared/data/winogender --out "
            "runs/wg-embedding",
            "refbench winogender plot runs/wg-first runs/wg-embedding --out wg.png")))
    @click.argument("runs", type=PATH, nargs=-1, required=True)
    @click.option("--out", type=OUT_FILE, required=True, help="Figure (.png, .pdf or .svg).")
    def plot(runs: tuple[Path, ...], out: Path) -> None:
        """The paper's correlation figure from Winogender run folders (or results JSON): per
        occupation, % women (BLS) against the share of its female-pronoun sentences each
        system resolves to the occupation, Pearson's r in the legend."""
        from refbench.core.errors import RefbenchError
        from refbench.tasks.winogender.figure import plot_occupations

        drawn = [(str(m.get("system") or m.get("model")), m["winogender"])
                 for _, m in services.run_metrics(list(runs))
                 if isinstance(m.get("winogender"), dict)]
        if not drawn:
            raise RefbenchError("no Winogender run among these folders", path=runs[0])
        plot_occupations(drawn, out)
        click.echo(f"wrote {out}")

    return [winogender]
