"""``refbench evaluate``: score predictions against gold, for one file, several runs or a suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from refbench.cli.common import CONTEXT, COUNT, OUT_FILE, PATH, SEED, print_json, transactional
from refbench.core.errors import UsageError

EXAMPLE = (
    "Examples: refbench evaluate --task kitmus --gold test.v4_gold_conll --pred c2f.jsonlines  |  "
    "refbench evaluate --task kitmus --gold test.jsonl --pred run1.jsonl run2.jsonl --json  |  "
    "refbench evaluate --task kitmus --gold kitmus-suite --pred preds/c2f preds/grep  |  "
    "refbench evaluate --task gap --gold gap-test.tsv --pred system.tsv"
)


@click.command(context_settings=CONTEXT, epilog=EXAMPLE)
@click.option("--task", required=True, help="kitmus, gap, knowref or tne (refbench ls tasks).")
@click.option("--gold", type=PATH, required=True, help="Gold file, or a suite folder (KITMUS).")
@click.option("--pred", type=PATH, required=True, multiple=True,
              help="Prediction file; more files may follow (runs). In suite mode, one folder "
                   "per system.")
@click.argument("more", nargs=-1, type=PATH)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--out", type=OUT_FILE, default=None,
              help="Write the result JSON with provenance.")
@click.option("--system", default=None, help="System name in tables.")
@click.option("--split", default="test", show_default=True, help="Split scored in suite mode.")
@click.option("--bootstrap", type=COUNT, default=1000, show_default=True,
              help="Bootstrap resamples (0: none).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Bootstrap seed.")
@click.option("--switched-pred", type=PATH, default=None,
              help="KnowRef: predictions on the switched copy (consistency).")
@click.option("--switched-gold", type=PATH, default=None,
              help="KnowRef: the switched gold (default: switched on the fly).")
@click.option("--plot", type=OUT_FILE, default=None,
              help="TNE: draw the preposition confusion heat-map (PNG).")
@click.option("--skip-invalid", is_flag=True,
              help="Skip malformed gold instances (reported as a count and ids) instead of "
                   "stopping.")
@transactional
def evaluate(task: str, gold: Path, pred: tuple[Path, ...], more: tuple[Path, ...],
             as_json: bool, out: Path | None, system: str | None, split: str, bootstrap: int,
             seed: int, switched_pred: Path | None, switched_gold: Path | None,
             plot: Path | None, skip_invalid: bool) -> None:
    """Score predictions: KITMUS antecedent P/R/F1, pronoun accuracy, KnowRef decisions, slices by
    pronoun and answer position, seeded bootstrap 95% intervals and the random baseline; or the
    GAP scorer's metrics. Missing predictions count as wrong and are reported. A malformed gold
    instance stops with an error naming it, unless --skip-invalid.
    """
    from refbench.core.invalid import InvalidInstances
    from refbench.core.registry import TASKS

    task = TASKS.canonical(task)
    preds = [*pred, *more]
    invalid = InvalidInstances() if skip_invalid else None
    result: dict[str, Any]
    if task == "tne":
        from refbench.tasks.tne.metrics import evaluate_tne, plot_confusion
        from refbench.tasks.tne.predictions import read_predictions
        from refbench.tasks.tne.read import read_documents

        if len(preds) != 1:
            raise UsageError("--task tne scores one prediction file at a time")
        docs = read_documents(gold, on_invalid=invalid)
        skipped = {str(s["id"]) for s in invalid.skipped} if invalid else set()
        result = evaluate_tne(docs, read_predictions(preds[0], {d.id: d for d in docs},
                                                     skipped=skipped))
        result.update({"gold": str(gold), "pred": str(preds[0])})
        if plot is not None:
            plot_confusion(result, plot)
        text = _tne_text(result)
    elif task == "knowref":
        from refbench.tasks.knowref.metrics import evaluate_knowref

        if len(preds) != 1:
            raise UsageError("--task knowref scores one prediction file (plus --switched-pred)")
        result = evaluate_knowref(gold, preds[0], switched_pred, switched_gold,
                                  on_invalid=invalid)
        text = _knowref_text(result)
    elif task == "gap":
        from refbench.tasks.gap.score import score_gap, scorecard

        if len(preds) != 1:
            raise UsageError("--task gap scores one system file at a time")
        result = score_gap(gold, preds[0], on_invalid=invalid)
        text = scorecard(result)
    elif gold.is_dir():
        from refbench.tasks.kitmus.suite_eval import evaluate_suite

        result = evaluate_suite(gold, [str(p) for p in preds], split=split,
                                bootstrap=min(bootstrap, 200), seed=seed, on_invalid=invalid)
        text = _suite_text(result)
    else:
        from refbench.tasks.kitmus.evaluate import evaluate_files

        result = evaluate_files(gold, preds, bootstrap=bootstrap, seed=seed, system=system,
                                on_invalid=invalid)
        text = _kitmus_text(result)
    if invalid is not None:
        result.update(invalid.report())
        if invalid:
            result.setdefault("warnings", []).append(invalid.summary())
    if out is not None:
        _write_result(result, out, gold=gold, preds=preds)
    for w in result.get("warnings", []):
        click.secho(f"WARNING: {w}", err=True, fg="yellow", bold=True)
    if as_json:
        print_json(result)
    else:
        click.echo(text)


def _write_result(result: dict[str, Any], out: Path, *, gold: Path, preds: list[Path]) -> None:
    from refbench.core.io import json_text, write_text_atomic
    from refbench.core.provenance import provenance

    inputs = {"gold": [str(gold)] if gold.is_file() else [],
              "pred": [str(p) for p in preds if p.is_file()]}
    result["provenance"] = provenance(inputs)
    write_text_atomic(out, json_text(result, indent=2) + "\n")


def _kitmus_text(r: dict[str, Any]) -> str:
    lines = []
    runs = r.get("n_runs", 1)

    def std(m: str) -> str:
        return f" ± {r[m + '_std']:.3f}" if runs > 1 else ""

    lines.append(f"Antecedent F1 is {r['antecedent_f1']:.3f}{std('antecedent_f1')} with precision "
                 f"{r['antecedent_precision']:.3f}{std('antecedent_precision')} and recall "
                 f"{r['antecedent_recall']:.3f}{std('antecedent_recall')}.")
    lines.append(f"Pronoun accuracy is {r['pronoun_accuracy']:.3f}{std('pronoun_accuracy')}.")
    if runs > 1:
        lines.append(f"({runs} runs: mean ± sample standard deviation)")
    else:
        ci = r["ci95"]
        lo, hi = ci["pronoun_accuracy"]
        lines.append(f"  95% bootstrap interval: [{lo:.3f}, {hi:.3f}] ({ci['resamples']} "
                     f"resamples, seed {ci['seed']})")
        d = r["decisions"]
        tsa = r["task_specific_accuracy"]
        lines.append(f"Decisions: correct {d['correct']}, incorrect {d['incorrect']}, several "
                     f"antecedents {d['multiple']}, no decision {d['none']}; task-specific "
                     f"accuracy {'-' if tsa is None else f'{tsa:.3f}'}")
        for name, group in r["slices"].items():
            parts = [f"{k} {v['pronoun_accuracy']:.3f} (n={v['n']})" for k, v in group.items()]
            lines.append(f"By {name.replace('_', ' ')}: " + ", ".join(parts))
    lines.append(f"Random baseline: {r['random_baseline']['pronoun_accuracy']:.3f}. Instances: "
                 f"{r['n']}, missing predictions: {r['n_missing']}.")
    return "\n".join(lines)


def _tne_text(r: dict[str, Any]) -> str:
    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.1f}"

    lines = [f"Labeled P/R/F1 {pct(r['labeled_precision'])} / {pct(r['labeled_recall'])} / "
             f"{pct(r['labeled_f1'])}; unlabeled {pct(r['unlabeled_precision'])} / "
             f"{pct(r['unlabeled_recall'])} / {pct(r['unlabeled_f1'])}",
             f"IPrep-Acc {pct(r['iprep_accuracy'])}, UPrep-Acc {pct(r['uprep_accuracy'])} "
             f"({r['uprep_scored']} missed links with scores); documents {r['n_documents']}, "
             f"without predictions {r['n_missing_documents']}"]
    lines.append("By NP distance: " + ", ".join(f"{k} F1 {pct(v['labeled_f1'])}"
                                                for k, v in r["by_distance"].items()))
    lines.append("By source: " + ", ".join(f"{k} F1 {pct(v['labeled_f1'])}"
                                           for k, v in r["by_source"].items()))
    lines.append("Recall explicit / implicit: " + ", ".join(
        f"{k} {pct(v['recall'])} (n={v['n_gold']})" for k, v in r["explicit_vs_implicit"].items()))
    return "\n".join(lines)


def _knowref_text(r: dict[str, Any]) -> str:
    d = r["decisions"]
    tsa = r["task_specific_accuracy"]
    lines = [f"Accuracy {r['accuracy']:.3f} on {r['n']} instances (missing {r['n_missing']}).",
             f"Decisions: correct {d['correct']}, incorrect {d['incorrect']}, both antecedents "
             f"{d['both_antecedents']}, no decision {d['no_decision']}; task-specific accuracy "
             f"{'-' if tsa is None else f'{tsa:.3f}'} (coverage {r['coverage']:.3f})."]
    if "switched" in r:
        s = r["switched"]
        b = s["breakdown"]
        c = s["consistency"]
        lines.append(f"Switched: accuracy {s['accuracy']:.3f}; consistency "
                     f"{'-' if c is None else f'{c:.3f}'} over {s['n_pairs']} pairs "
                     f"(consistently correct {b['consistently_correct']}, consistently wrong "
                     f"{b['consistently_wrong']}, inconsistent {b['inconsistent']}).")
    return "\n".join(lines)


def _suite_text(r: dict[str, Any]) -> str:
    from refbench.report.tables import kitmus_cells, kitmus_grid, render

    cells, random = kitmus_cells([r], "pronoun_accuracy")
    header, rows = kitmus_grid(cells, random)
    return render(header, rows, "md", title=f"Pronoun accuracy, {r['split']} split")
