"""Results as a few lines for the terminal, shared by the tasks' report capabilities
(:meth:`refbench.tasks.capabilities.Report.text`, which ``refbench evaluate`` prints through
:func:`refbench.reporting.text.result_text`) and by that function's fallback for a task with no
text of its own: each says what it prints (fractions, unless a line says percent) and names the
system, the data and the split."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from refbench.core.identity import data_display_name
from refbench.core.result import Result

#: A data file named by its last folders: the one definition is the identity's.
data_label = data_display_name


def fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def about(r: Mapping[str, Any] | Result) -> str:
    """``SYSTEM on DATA, SPLIT split`` and, for a partial result, its coverage note. A
    :class:`~refbench.core.result.Result` says it from its identity and coverage (built once,
    in :mod:`refbench.core.result`: every reason a result is partial); a result mapping (the
    task texts still take them) from its keys, as before (only lm-eval's ``data_coverage``)."""
    if isinstance(r, Result):
        split = f", {r.data.split} split" if r.data.split else ""
        return f"{r.system.name} on {data_label(r.data.path or None)}{split}{r.coverage.note()}"
    split = f", {r['split']} split" if r.get("split") else ""
    return f"{r.get('system') or r.get('model') or 'system'} on " \
           f"{data_label(r.get('data') or r.get('gold'))}{split}{coverage_note(r)}"


def coverage_note(r: Mapping[str, Any] | Result) -> str:
    """`` (partial: 40 of 273 instances, lm-eval --limit)`` for a run over part of its data
    (a Result: :meth:`refbench.core.identity.Coverage.note`)."""
    if isinstance(r, Result):
        return r.coverage.note()
    cov = r.get("data_coverage")
    if not isinstance(cov, dict):
        return ""
    return f" (partial: {cov.get('n')} of {cov.get('of')} instances, {cov.get('by', '--limit')})"


def slice_lines(r: dict[str, Any], key: str = "accuracy") -> list[str]:
    out = []
    for name, group in r.get("slices", {}).items():
        parts = [f"{k} {fmt(v[key])} (n={v['n']})" for k, v in group.items()
                 if v.get(key) is not None]
        if parts:
            out.append(f"By {name.replace('_', ' ')}: " + ", ".join(parts))
    return out


def choice_text(r: dict[str, Any]) -> str:
    """Accuracy of a choice task (run or evaluate), with interval and slices."""
    lines = [f"{about(r)} (figures are fractions):"]
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
    lines += [f"  {s}" for s in slice_lines(r)]
    return "\n".join(lines)


def id_ranges(ids: list[int]) -> str:
    """Run ids as ranges: ``1-3, 7``."""
    ids = sorted(ids)
    parts, start = [], ids[0]
    for a, b in zip(ids, [*ids[1:], None], strict=True):
        if b != a + 1:
            parts.append(str(start) if start == a else f"{start}-{a}")
            start = b if b is not None else start
    return ", ".join(parts)
