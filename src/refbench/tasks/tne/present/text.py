"""What ``refbench evaluate`` prints for a TNE result (percentages, as the paper)."""

from __future__ import annotations

from typing import Any

from refbench.tasks.result_text import about


def tne_text(r: dict[str, Any]) -> str:
    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.1f}"

    lines = [f"{about(r)} (TNE figures in percent; --json gives fractions):",
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
