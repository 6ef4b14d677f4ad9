"""The model card as text: Markdown, LaTeX (booktabs: a column group per benchmark, no paths,
no error text, notes as footnotes), HTML and CSV (one row per record, as ``--json``)."""

from __future__ import annotations

import csv
import html
import io
from typing import Any, Protocol

from refbench.tasks.headline import HeadlineFigure

FORMATS = ("md", "latex", "html", "csv")
#: The fields of a ``--json`` record (one per system x benchmark x metric), in order.
RECORD_KEYS = ("system", "benchmark", "metric", "value", "ci_low", "ci_high", "n", "N",
               "partial")
PARTIAL_MARK = "†"


class ModelCard(Protocol):
    """What rendering reads of a :class:`refbench.reporting.card.ModelCard` (which imports
    this module, so it is named here by its shape)."""

    systems: list[str]
    benchmarks: list[Any]
    notes: list[str]
    against: str | None

    def cell(self, system: str, benchmark: str) -> Any: ...

    def metrics(self, benchmark: Any) -> list[tuple[str, str]]: ...

    def records(self) -> list[dict[str, Any]]: ...

SIGNIFICANT_MARK = "*"


def _number(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def figure_text(f: HeadlineFigure, *, n: bool = True) -> str:
    """``0.502 [0.443, 0.560] (273 of 273)``; partial ones end in †."""
    text = _number(f.value)
    if f.interval is not None:
        text += f" [{f.interval[0]:.3f}, {f.interval[1]:.3f}]"
    if n:
        text += f" ({f.n} of {'?' if f.of is None else f.of})"
    return text + (f" {PARTIAL_MARK}" if f.partial else "")


def _cells(card: ModelCard, system: str) -> list[str]:
    out = []
    for b in card.benchmarks:
        c = card.cell(system, b.name)
        for metric, _ in card.metrics(b):
            f = next((x for x in c.figures if x.metric == metric), None) if c else None
            text = "" if f is None else figure_text(f)
            if f is not None and c is not None and c.significant:
                text += SIGNIFICANT_MARK
            out.append(text)
    return out


def _notes(card: ModelCard) -> list[str]:
    notes = list(card.notes)
    if card.against is not None:
        notes.append(f"{SIGNIFICANT_MARK}: the paired test (McNemar's exact, on the instances "
                     f"both answered) against {card.against} is significant at 0.05 after "
                     "Holm's correction over the table")
    return notes


def markdown(card: ModelCard) -> str:
    header = ["System"] + [f"{b.name}: {label}" for b in card.benchmarks
                           for _, label in card.metrics(b)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for s in card.systems:
        lines.append("| " + " | ".join([s, *_cells(card, s)]) + " |")
    return "\n".join(["**Model card: 95% intervals, n of N**", "", *lines, "",
                      *[f"- {n}" for n in _notes(card)]]) + "\n"


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}", PARTIAL_MARK: r"$^\dagger$", SIGNIFICANT_MARK: r"$^*$"}


def tex(text: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in text)


def latex(card: ModelCard, *, standalone: bool = False) -> str:
    groups = [(b, card.metrics(b)) for b in card.benchmarks]
    ncols = sum(len(m) for _, m in groups)
    lines = [r"\begin{table}[t]", r"\centering", r"\small",
             r"\begin{tabular}{l" + "c" * ncols + "}", r"\toprule"]
    top, rules, col = ["System"], [], 2
    for b, ms in groups:
        top.append(rf"\multicolumn{{{len(ms)}}}{{c}}{{{tex(b.name)}}}")
        rules.append(rf"\cmidrule(lr){{{col}-{col + len(ms) - 1}}}")
        col += len(ms)
    lines += [" & ".join(top) + r" \\", " ".join(rules),
              " & ".join(["", *[tex(label) for _, ms in groups for _, label in ms]]) + r" \\",
              r"\midrule"]
    for s in card.systems:
        lines.append(" & ".join(tex(x) for x in [s, *_cells(card, s)]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    caption = "Model card: headline figures with 95\\% intervals and n of N."
    lines += [r"\caption{" + caption + "}", r"\label{tab:refbench-card}"]
    notes = _notes(card)
    if notes:
        lines += [r"\par\footnotesize"] + [tex(n) + r"\\" for n in notes]
    lines.append(r"\end{table}")
    body = "\n".join(lines) + "\n"
    if standalone:
        return ("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                + body + "\\end{document}\n")
    return body


def card_html_table(card: ModelCard, *, links: bool = False) -> str:
    """The table alone (Jupyter's ``_repr_html_``; the web page wraps its own)."""
    e = html.escape
    groups = [(b, card.metrics(b)) for b in card.benchmarks]
    head1 = "".join(f'<th colspan="{len(ms)}">{e(b.name)}</th>' for b, ms in groups)
    head2 = "".join(f"<th>{e(label)}</th>" for _, ms in groups for _, label in ms)
    rows = []
    for s in card.systems:
        tds = "".join(f'<td class="{"partial" if PARTIAL_MARK in t else ""}">{e(t)}</td>'
                      for t in _cells(card, s))
        rows.append(f"<tr><th>{e(s)}</th>{tds}</tr>")
    notes = "".join(f"<li>{e(n)}</li>" for n in _notes(card))
    return (f'<table class="model-card"><thead><tr><th rowspan="2">System</th>{head1}</tr>'
            f"<tr>{head2}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"<ul class=\"notes\">{notes}</ul>")


def html_page(card: ModelCard) -> str:
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Model card</title>"
            "<style>table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px}"
            "</style></head><body>\n<h1>Model card</h1>\n" + card_html_table(card)
            + "\n</body></html>\n")


def csv_text(card: ModelCard) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=[*RECORD_KEYS, "method", "task"],
                       extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for rec in card.records():
        w.writerow(rec)
    return buf.getvalue()


def render_card(card: ModelCard, fmt: str, *, standalone: bool = False) -> str:
    if fmt == "md":
        return markdown(card)
    if fmt == "latex":
        return latex(card, standalone=standalone)
    if fmt == "html":
        return html_page(card)
    if fmt == "csv":
        return csv_text(card)
    raise ValueError(f"unknown format {fmt!r}")
