"""``refbench winobias``: check a release folder, score a coreference system's CoNLL output.

Built on demand through the task's commands capability, so importing the task never imports
Click."""

from __future__ import annotations

from pathlib import Path

import click

from refbench.core.commands import CONTEXT, DATA, print_json
from refbench.core.help_text import examples
from refbench.tasks.capabilities import CommandServices


def commands(services: CommandServices) -> list[click.Command]:
    @click.group("winobias", context_settings=CONTEXT, epilog=(
        examples(
            "refbench winobias check ../shared/data/winobias")))
    def winobias() -> None:
        """WinoBias: check the release, score CoNLL coreference output."""

    @winobias.command("check", context_settings=CONTEXT, epilog=(
        examples(
            "refbench winobias check ../shared/data/winobias",
            "refbench winobias check ../shared/data/winobias --json")))
    @click.argument("folder", type=DATA)
    @click.option("--examples", type=click.IntRange(min=0), default=5, show_default=True,
                  help="Lines quoted per kind of oddity (--json lists them all).")
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
    def check(folder: Path, examples: int, as_json: bool) -> None:
        """Every oddity across the release's 16 files (8 sentence files, 8 CoNLL files): a
        determiner written twice ("notified the [the chief]"), brackets around part of a
        phrase, a third occupation, pronouns of both genders, pro/anti twins that differ in
        more than the pronoun, CoNLL documents that do not match their sentences. Each is read,
        none is fatal; the counts are pinned by the tests. Exit code 1 when the release is
        unusable as published (lines that cannot be read, files of another size, numbering,
        labels against the occupation lists, CoNLL files not matching), 2 when it cannot be
        read at all."""
        from refbench.core.inputs import check_input_file
        from refbench.tasks.winobias.check import check_release, check_text

        check_input_file(folder / "male_occupations.txt", what="WinoBias release folder")
        report = check_release(folder)
        if as_json:
            print_json(report)
        else:
            click.echo(check_text(report, examples=examples))
        if not report["ok"]:
            raise SystemExit(1)

    @winobias.command("score-conll", context_settings=CONTEXT, epilog=(
        examples(
            "refbench winobias score-conll --gold "
            "../shared/data/winobias/conll_format/test_type1_pro_stereotype.v4_auto_conll "
            "--pred system_output.conll  # needs: a coreference system's CoNLL output for "
            "that file")))
    @click.option("--gold", type=DATA, required=True, help="A WinoBias CoNLL file.")
    @click.option("--pred", type=DATA, required=True,
                  help="The system's CoNLL output for the same documents.")
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
    def score_conll(gold: Path, pred: Path, as_json: bool) -> None:
        """MUC, B3 and CEAF-e recall / precision / F1 and the CoNLL F1 (their mean) of a
        coreference system's output, documents matched by id (scorch, as the study tools)."""
        from refbench.core.inputs import check_input_file
        from refbench.tasks.winobias.metrics import score_conll_files

        scores = score_conll_files(check_input_file(gold, what="gold CoNLL file"),
                                   check_input_file(pred, what="predicted CoNLL file"))
        if as_json:
            print_json(scores)
            return
        click.echo(f"{pred} against {gold}: {scores['n_documents']} documents "
                   f"({scores['n_missing']} missing from the output); F1 in %")
        for m in ("muc", "b3", "ceafe"):
            click.echo(f"  {m:<6} R {100 * scores[f'{m}_recall']:5.1f}  P "
                       f"{100 * scores[f'{m}_precision']:5.1f}  F1 {100 * scores[f'{m}_f1']:5.1f}")
        click.echo(f"  CoNLL F1 {100 * scores['conll_f1']:.1f}")

    return [winobias]
