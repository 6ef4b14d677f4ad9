"""What ``refbench evaluate`` prints for a KnowRef result."""

from __future__ import annotations

from typing import Any

from refbench.tasks.result_text import about, fmt, slice_lines


def knowref_text(r: dict[str, Any]) -> str:
    d = r["decisions"]
    lines = [f"{about(r)} (figures are fractions):",
             f"Accuracy {fmt(r['accuracy'])} on {r['n']} instances (missing {r['n_missing']}).",
             f"Decisions: correct {d['correct']}, incorrect {d['incorrect']}, both antecedents "
             f"{d['both_antecedents']}, no decision {d['no_decision']}; task-specific accuracy "
             f"{fmt(r['task_specific_accuracy'])} (coverage {fmt(r['coverage'])})."]
    lines += slice_lines(r)
    if "switched" in r:
        s = r["switched"]
        b = s["breakdown"]
        lines.append(f"Switched: accuracy {fmt(s['accuracy'])}; consistency "
                     f"{fmt(s['consistency'])} over {s['n_pairs']} pairs "
                     f"(consistently correct {b['consistently_correct']}, consistently wrong "
                     f"{b['consistently_wrong']}, inconsistent {b['inconsistent']}).")
    return "\n".join(lines)
