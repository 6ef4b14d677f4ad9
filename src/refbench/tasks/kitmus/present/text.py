"""What ``refbench evaluate`` prints for one KITMUS evaluation (not a suite: a table)."""

from __future__ import annotations

from typing import Any

from refbench.tasks.result_text import about, fmt, id_ranges


def kitmus_text(r: dict[str, Any]) -> str:
    lines = [f"{about(r)} (figures are fractions):"]
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
                     f"accuracy {fmt(r['task_specific_accuracy'])}")
        for name, group in r.get("kitmus_slices", {}).items():
            parts = [f"{k} {v['pronoun_accuracy']:.3f} (n={v['n']})" for k, v in group.items()]
            lines.append(f"By {name.replace('_', ' ')}: " + ", ".join(parts))
    lines.append(f"Random baseline: {r['random_baseline']['pronoun_accuracy']:.3f}. Instances: "
                 f"{r['n']}, missing predictions: {r['n_missing']}.")
    return "\n".join(lines)


def suite_run_text(r: dict[str, Any]) -> str:
    """The line under a suite run's table: subtasks, cache, where predictions went, run ids."""
    n = len(r["cells"])
    cached = f"{r['n_cached']} of {sum(c['n'] for c in r['cells'])} predictions from the cache"
    ids = r.get("run_ids") or []
    recorded = (f"; run{'s' if len(ids) > 1 else ''} {id_ranges(ids)} in {r['store']}"
                if ids else "; not recorded (--no-store)")
    cov = r.get("data_coverage")
    partial = (f"Partial: {cov['n']} of {cov['of']} instances ({cov.get('by')}); every cell "
               "is over the instances covered. ") if isinstance(cov, dict) else ""
    return (f"{partial}{n} subtasks, {cached}. Predictions: {r['out_dir']}/<variant>/"
            f"subtask_<n>_ents/{r['split']}/predictions.jsonl; table: "
            f"{r['out_dir']}/suite-results.json{recorded}.")
