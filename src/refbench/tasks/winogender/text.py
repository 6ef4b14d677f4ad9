"""What ``refbench run`` / ``evaluate`` print for a Winogender result, its report table and its
figure (the report capability)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.table import Table, interval_of
from refbench.tasks.capabilities import Report
from refbench.tasks.result_text import about, data_label, fmt


def winogender_text(r: dict[str, Any]) -> str:
    w = r["winogender"]
    lines = [f"{about(r)} (figures are fractions):",
             f"  accuracy {fmt(w['accuracy'])} on {w['n']} sentences; by pronoun: " +
             ", ".join(f"{g} {fmt(v['accuracy'])}" for g, v in w["by_gender"].items()),
             "  by answer: " + ", ".join(f"{k} {fmt(v['accuracy'])} (n={v['n']})"
                                         for k, v in w["by_answer"].items())]
    f = w["flip"]
    lines.append(f"  gender flips: the answer changes with the pronoun in {fmt(f['flip_rate'])} "
                 f"of {f['n_groups']} groups (" + ", ".join(f"{k} {fmt(v)}"
                                                           for k, v in f["pairs"].items()) + ")")
    if "gotcha" in w:
        g = w["gotcha"]
        lines.append(f"  gotcha {fmt(g['gotcha']['accuracy'])} (n={g['gotcha']['n']}) vs. "
                     f"not gotcha {fmt(g['not_gotcha']['accuracy'])} "
                     f"(n={g['not_gotcha']['n']}), answer = occupation")
    if "occupations" in w:
        o = w["occupations"]
        lines.append(f"  female pronouns resolved to the occupation vs. % women (BLS): "
                     f"Pearson r {fmt(o['pearson_r_bls'])} over {o['n_occupations']} "
                     f"occupations (Bergsma text statistics: {fmt(o['pearson_r_bergsma'])})")
    return "\n".join(lines)


COLUMNS = (("accuracy", "Acc"), ("accuracy_male", "Male"), ("accuracy_female", "Female"),
           ("accuracy_neutral", "Neutral"), ("flip_rate", "Flip rate"),
           ("gotcha_accuracy", "Gotcha"), ("not_gotcha_accuracy", "Not gotcha"),
           ("pearson_r", "r (BLS)"))


def _cell(r: dict[str, Any], key: str, ci: bool) -> str:
    interval = interval_of(r.get("ci95"), key) if ci else None
    text = fmt(r.get(key))
    return f"{text} [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else text


def report_table(results: Sequence[dict[str, Any]], *, ci: bool = False) -> Table:
    """One row per result: accuracy overall and by pronoun, flips, gotchas and Pearson's r;
    with ``ci``, each figure's 95% interval in brackets."""
    rows = [[str(r.get("system") or r.get("model") or "-"), data_label(r.get("data")),
             *(_cell(r, k, ci) for k, _ in COLUMNS), str(r.get("n", "-"))] for r in results]
    tidy = [{"system": row[0], "data": row[1], **{k: r.get(k) for k, _ in COLUMNS},
             **{f"{k}_ci95": interval_of(r.get("ci95"), k) for k, _ in COLUMNS}}
            for row, r in zip(rows, results, strict=True)]
    notes = ["Fractions. Flip rate: share of template x participant groups whose answer "
             "changes with the pronoun's gender. Gotcha: answer = occupation, pronoun gender "
             "not the occupation's majority (BLS). r: Pearson's r of % women (BLS) with the "
             "share of female-pronoun sentences resolved to the occupation (Rudinger et al. "
             "2018, figure 4)."]
    if ci:
        notes.append("[low, high]: 95% intervals; accuracy: seeded bootstrap over sentences; "
                     "by gender, flip rate and gotcha: Wilson score intervals over their "
                     "sentences or groups; r: Fisher's z over the occupations.")
    return Table(title="Winogender: accuracy by pronoun gender, gender flips, gotchas",
                 header=["System", "Data", *(label for _, label in COLUMNS), "n"], rows=rows,
                 tidy=tidy, label="tab:winogender", notes=notes)


class WinogenderReport(Report):
    table_notes = ("flip rate: share of the 240 template x participant groups whose answer "
                   "changes with the pronoun's gender; gotcha: the answer is the occupation and "
                   "the pronoun's gender is not its majority gender (BLS); r: Pearson's r of "
                   "% women (BLS) with the share of female-pronoun sentences resolved to the "
                   "occupation",)

    def text(self, result: dict[str, Any], *, ci: bool = False) -> str | None:
        return winogender_text(result) if "winogender" in result else None

    def tables(self, results: Sequence[dict[str, Any]], *, metric: str | None = None,
               ci: bool = False) -> list[Table] | None:
        return [report_table(results, ci=ci)]

    def plot(self, results: Sequence[dict[str, Any]], out: Path, *,
             metric: str | None = None) -> bool:
        """Accuracy by pronoun gender and on gotcha sentences, with 95% intervals (the
        occupation correlation figure is ``refbench winogender plot``)."""
        from refbench.tasks.winogender.figure import plot_groups, series_names

        mine = [r for r in results if isinstance(r.get("winogender"), dict)]
        drawn = list(zip(series_names(mine), mine, strict=True))
        if not drawn:
            return False
        plot_groups(drawn, out)
        return True
