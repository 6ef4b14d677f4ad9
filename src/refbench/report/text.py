"""Results as a few lines for the terminal, each saying what it prints (fractions, unless a
line says percent) and naming the system, the data and the split."""

from __future__ import annotations

from typing import Any

from refbench.report.render import render_tables
from refbench.report.tables import data_label, kitmus_cells, kitmus_table


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _about(r: dict[str, Any]) -> str:
    split = f", {r['split']} split" if r.get("split") else ""
    return f"{r.get('system') or r.get('model') or 'system'} on " \
           f"{data_label(r.get('data') or r.get('gold'))}{split}"


def _slices(r: dict[str, Any], key: str = "accuracy") -> list[str]:
    out = []
    for name, group in r.get("slices", {}).items():
        parts = [f"{k} {_f(v[key])} (n={v['n']})" for k, v in group.items()
                 if v.get(key) is not None]
        if parts:
            out.append(f"By {name.replace('_', ' ')}: " + ", ".join(parts))
    return out


def choice_text(r: dict[str, Any]) -> str:
    """Accuracy of a choice task (run or evaluate), with interval and slices."""
    lines = [f"{_about(r)} (figures are fractions):"]
    if r.get("accuracy") is None:
        lines.append(f"  {r['n']} instances, none with a gold answer: no accuracy")
    else:
        ci = (r.get("ci95") or {}).get("accuracy")
        lines.append(f"  accuracy {r['accuracy']:.3f} over {r['n_with_gold']} instances with "
                     "gold" + (f"; 95% bootstrap interval [{ci[0]:.3f}, {ci[1]:.3f}]"
                               if ci else ""))
    if r.get("accuracy_norm") is not None:
        lines.append(f"  accuracy (length-normalised): {r['accuracy_norm']:.3f}")
    if r.get("n_no_answer"):
        lines.append(f"  no answer for {r['n_no_answer']} instances (counted as wrong)")
    for key in ("f1", "precision", "recall", "f1_masculine", "f1_feminine", "bias",
                "task_specific_accuracy", "coverage", "truncated_instances"):
        if r.get(key) is not None:
            v = r[key]
            lines.append(f"  {key.replace('_', ' ')}: {v:.3f}" if isinstance(v, float)
                         else f"  {key.replace('_', ' ')}: {v}")
    lines += [f"  {s}" for s in _slices(r)]
    return "\n".join(lines)


def kitmus_text(r: dict[str, Any]) -> str:
    lines = [f"{_about(r)} (figures are fractions):"]
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
        lines.append(f"Decisions: correct {d['correct']}, incorrect {d['incorrect']}, several "
                     f"antecedents {d['multiple']}, no decision {d['none']}; task-specific "
                     f"accuracy {_f(r['task_specific_accuracy'])}")
        for name, group in r["slices"].items():
            parts = [f"{k} {v['pronoun_accuracy']:.3f} (n={v['n']})" for k, v in group.items()]
            lines.append(f"By {name.replace('_', ' ')}: " + ", ".join(parts))
    lines.append(f"Random baseline: {r['random_baseline']['pronoun_accuracy']:.3f}. Instances: "
                 f"{r['n']}, missing predictions: {r['n_missing']}.")
    return "\n".join(lines)


def tne_text(r: dict[str, Any]) -> str:
    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.1f}"

    lines = [f"{_about(r)} (TNE figures in percent; --json gives fractions):",
             f"Labeled P/R/F1 {pct(r['labeled_precision'])} / {pct(r['labeled_recall'])} / "
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


def knowref_text(r: dict[str, Any]) -> str:
    d = r["decisions"]
    lines = [f"{_about(r)} (figures are fractions):",
             f"Accuracy {_f(r['accuracy'])} on {r['n']} instances (missing {r['n_missing']}).",
             f"Decisions: correct {d['correct']}, incorrect {d['incorrect']}, both antecedents "
             f"{d['both_antecedents']}, no decision {d['no_decision']}; task-specific accuracy "
             f"{_f(r['task_specific_accuracy'])} (coverage {_f(r['coverage'])})."]
    lines += _slices(r)
    if "switched" in r:
        s = r["switched"]
        b = s["breakdown"]
        lines.append(f"Switched: accuracy {_f(s['accuracy'])}; consistency "
                     f"{_f(s['consistency'])} over {s['n_pairs']} pairs "
                     f"(consistently correct {b['consistently_correct']}, consistently wrong "
                     f"{b['consistently_wrong']}, inconsistent {b['inconsistent']}).")
    return "\n".join(lines)


def suite_text(r: dict[str, Any], *, metric: str = "pronoun_accuracy", ci: bool = False) -> str:
    cells, random = kitmus_cells([r], metric)
    return render_tables([kitmus_table(cells, random, metric=metric, split=r.get("split"),
                                       ci=ci)], "md")


def result_text(r: dict[str, Any], *, ci: bool = False) -> str:
    """The text ``refbench evaluate`` prints for any task's result."""
    from refbench.tasks.gap.score import scorecard

    task = r.get("task")
    if task == "kitmus":
        return suite_text(r, ci=ci) if r.get("mode") == "suite" else kitmus_text(r)
    if task == "tne":
        return tne_text(r)
    if task == "knowref":
        return knowref_text(r)
    if task == "gap":
        return choice_text(r) + "\n" + scorecard(r)
    return choice_text(r)


def run_text(m: dict[str, Any]) -> str:
    """What ``refbench run`` prints for one data file."""
    lines = [choice_text(m)]
    for key in ("pronoun_accuracy", "antecedent_f1"):
        if m.get(key) is not None:
            lines.append(f"  {key.replace('_', ' ')}: {m[key]:.3f}")
    cache = f"{m['n_cached']} of {m['n']} predictions from the cache"
    if m.get("uncached_batches"):
        cache += f"; {m['uncached_batches']} batches not cached (store busy)"
    lines.append(f"  {cache}")
    where = f"  predictions: {m['predictions']}"
    if m.get("run_id") is not None:
        where += f"; run {m['run_id']} in {m.get('store', 'the results store')}"
    lines.append(where)
    return "\n".join(lines)


def suite_run_text(r: dict[str, Any], *, ci: bool = False) -> str:
    """The table of a suite run and its summary line: where the predictions went, run ids."""
    table = suite_text(r, ci=ci)
    n = len(r["cells"])
    cached = f"{r['n_cached']} of {sum(c['n'] for c in r['cells'])} predictions from the cache"
    ids = r.get("run_ids") or []
    recorded = (f"; run{'s' if len(ids) > 1 else ''} {_id_ranges(ids)} in {r['store']}"
                if ids else "; not recorded (--no-store)")
    return (f"{table}\n{n} subtasks, {cached}. Predictions: {r['out_dir']}/<variant>/"
            f"subtask_<n>_ents/{r['split']}/predictions.jsonl; table: "
            f"{r['out_dir']}/suite-results.json{recorded}.")


def _id_ranges(ids: list[int]) -> str:
    ids = sorted(ids)
    parts, start = [], ids[0]
    for a, b in zip(ids, [*ids[1:], None], strict=True):
        if b != a + 1:
            parts.append(str(start) if start == a else f"{start}-{a}")
            start = b if b is not None else start
    return ", ".join(parts)
