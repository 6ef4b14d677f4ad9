"""Tables as text for papers and notebooks: Markdown, LaTeX (booktabs), a complete HTML page,
and tidy CSV (one row per figure).

A :class:`Table` holds the rendered cell strings plus, for CSV, the figures as records. A
grouped header (e.g. one group of 2/3/4-entity columns per system) becomes ``\\multicolumn`` with
``\\cmidrule`` in LaTeX and ``colspan`` in HTML. The LaTeX output is a ``table`` float that
compiles as-is in any document that loads booktabs (``--standalone`` adds that document).
Every piece of text is escaped for its format.
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Sequence
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.table import Table
from refbench.core.version import __version__

__all__ = ["FORMATS", "Table", "aligned_text", "render_tables"]

FORMATS = ("md", "latex", "html", "csv")
TIDY_COLUMNS = ("task", "system", "kind", "data", "split", "variant", "n_entities", "metric",
                "value", "std", "n_runs", "n", "ci_low", "ci_high", "model")


def render_tables(tables: Sequence[Table], fmt: str, *, standalone: bool = False) -> str:
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    if fmt == "csv":
        return _csv(tables)
    if fmt == "html":
        return _html_page(tables)
    if fmt == "latex":
        body = "\n".join(_latex(t) for t in tables)
        wide = any(table_width(t) > 110 for t in tables)
        return _latex_document(body, landscape=wide) if standalone else body
    return "\n".join(_markdown(t) for t in tables)


def aligned_text(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Plain columns for a terminal (numbers right-aligned), with a header line."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]

    def numeric(col: int) -> bool:
        cells = [r[col] for r in rows]
        return all(_is_number(c) for c in cells) and any(c != "-" for c in cells)

    right = [numeric(j) for j in range(len(header))]
    lines = []
    for r in [list(header), *rows]:
        lines.append("  ".join(str(c).rjust(w) if right[j] else str(c).ljust(w)
                               for j, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip())
    return "\n".join(lines) + "\n"


def _numeric_columns(t: Table) -> list[bool]:
    """Columns whose cells are all figures (or '-'), to be right-aligned."""
    out = []
    for j in range(len(t.header)):
        cells = [r[j].split(" ")[0] for r in t.rows if j < len(r)]
        out.append(j > 0 and all(_is_number(c) for c in cells) and any(c != "-" for c in cells))
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return text == "-"
    return True


# --- Markdown ------------------------------------------------------------------------------

def _md_cell(text: str) -> str:
    """Pipes would split the cell; angle brackets would be read as HTML."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _markdown(t: Table) -> str:
    header = list(t.header)
    named = [g for g in t.groups if g[0]]
    if len(named) > 1:  # one header row only: prefix each column with its group
        col = 0
        for label, span in t.groups:
            for j in range(col, col + span):
                if label:
                    header[j] = f"{label}: {header[j]}"
            col += span
    title = t.title + (f" ({named[0][0]})" if len(named) == 1 else "")
    out = [f"**{_md_cell(title)}**", ""] if title else []
    out.append("| " + " | ".join(_md_cell(h) for h in header) + " |")
    out.append("|" + "|".join("---:" if numeric else "---"
                              for numeric in _numeric_columns(t)) + "|")
    out += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in t.rows]
    if t.notes:
        out += ["", *(f"_{_md_cell(n)}_" for n in t.notes)]
    return "\n".join(out) + "\n"


# --- LaTeX ---------------------------------------------------------------------------------

_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
        "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
        "±": r"$\pm$", "<": r"\textless{}", ">": r"\textgreater{}", "–": "--"}


def tex(text: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in text)


def _latex_cell(text: str) -> str:
    """An interval after the figure is set smaller, so wide tables stay readable."""
    m = re.fullmatch(r"(.*?) (\[[^\]]*\])(.*)", text)
    if not m:
        return tex(text)
    return f"{tex(m.group(1))} {{\\scriptsize {tex(m.group(2))}}}{tex(m.group(3))}"


def table_width(t: Table) -> int:
    """Characters in the widest row: a rough width, to choose a landscape page."""
    return max(sum(len(c) + 2 for c in row) for row in [t.header, *t.rows])


def _latex(t: Table) -> str:
    lines = [f"% refbench {__version__}: needs \\usepackage{{booktabs}} in the preamble",
             r"\begin{table}[htbp]", r"\centering", r"\small", r"\setlength{\tabcolsep}{4pt}"]
    if table_width(t) > 110:
        lines.insert(1, "% wide: use table* in two-column papers, or wrap the tabular in "
                        "\\resizebox{\\linewidth}{!}{...} (graphicx)")
    caption = t.title + (". " + " ".join(t.notes) if t.notes else "")
    lines += [rf"\caption{{{tex(caption)}}}", rf"\label{{{t.label}}}",
              r"\begin{tabular}{" + "".join("r" if numeric else "l"
                                            for numeric in _numeric_columns(t)) + "}",
              r"\toprule"]
    if any(label for label, _ in t.groups):
        cells, rules, col = [], [], 1
        for label, span in t.groups:
            cells.append(rf"\multicolumn{{{span}}}{{c}}{{{tex(label)}}}" if span > 1
                         else tex(label))
            if label and span > 1:
                rules.append(rf"\cmidrule(lr){{{col}-{col + span - 1}}}")
            col += span
        lines.append(" & ".join(cells) + r" \\")
        lines.append(" ".join(rules))
    lines.append(" & ".join(tex(h) for h in t.header) + r" \\")
    lines.append(r"\midrule")
    for i, row in enumerate(t.rows):
        if i in t.rule_before:
            lines.append(r"\midrule")
        lines.append(" & ".join(_latex_cell(c) for c in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _latex_document(body: str, *, landscape: bool = False) -> str:
    geometry = "landscape,margin=1.5cm" if landscape else "margin=2cm"
    return "\n".join([r"\documentclass{article}",
                      rf"\usepackage[{geometry}]{{geometry}}", r"\usepackage{booktabs}",
                      r"\begin{document}", body.rstrip("\n"), r"\end{document}"]) + "\n"


# --- HTML ----------------------------------------------------------------------------------

_CSS = ("body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
        "table{border-collapse:collapse;margin:1.5em 0}"
        "caption{font-weight:600;text-align:left;padding-bottom:.4em}"
        "th,td{padding:.25em .7em;text-align:right;white-space:nowrap}"
        "th[colspan]{text-align:center;border-bottom:1px solid #222}"
        "td small{color:#555}"
        "th:first-child,td:first-child,.text{text-align:left}"
        "thead tr:last-child th{border-bottom:1px solid #222}"
        "thead tr:first-child th{border-top:2px solid #222}"
        "tbody tr:last-child td{border-bottom:2px solid #222}"
        "tr.rule td{border-top:1px solid #222}.notes{color:#555;font-size:.9em;max-width:60em}")


def _html_cell(text: str) -> str:
    m = re.fullmatch(r"(.*?) (\[[^\]]*\])(.*)", text)
    if not m:
        return html.escape(text)
    return f"{html.escape(m.group(1))} <small>{html.escape(m.group(2))}</small>" \
           f"{html.escape(m.group(3))}"


def _html(t: Table) -> str:
    esc = html.escape
    parts = ["<table>", f"<caption>{esc(t.title)}</caption>", "<thead>"]
    if any(label for label, _ in t.groups):
        parts.append("<tr>" + "".join(
            f'<th colspan="{span}" scope="colgroup">{esc(label)}</th>' if span > 1
            else f"<th>{esc(label)}</th>" for label, span in t.groups) + "</tr>")
    left = [' class="text"' if not numeric else "" for numeric in _numeric_columns(t)]
    parts.append("<tr>" + "".join(f'<th scope="col"{a}>{esc(h)}</th>'
                                  for h, a in zip(t.header, left, strict=True)) + "</tr>")
    parts.append("</thead><tbody>")
    for i, row in enumerate(t.rows):
        cls = ' class="rule"' if i in t.rule_before else ""
        parts.append(f"<tr{cls}>" + "".join(f"<td{a}>{_html_cell(c)}</td>"
                                            for c, a in zip(row, left, strict=True)) + "</tr>")
    parts.append("</tbody></table>")
    if t.notes:
        parts.append(f'<p class="notes">{esc(" ".join(t.notes))}</p>')
    return "\n".join(parts)


def _html_page(tables: Sequence[Table]) -> str:
    title = html.escape(tables[0].title if tables else "refbench results")
    body = "\n".join(_html(t) for t in tables)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"generator\" content=\"refbench {__version__}\">\n"
            f"<title>{title}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n{body}\n"
            "</body>\n</html>\n")


# --- CSV -----------------------------------------------------------------------------------

def _csv(tables: Sequence[Table]) -> str:
    buf = io.StringIO()
    if all(t.tidy for t in tables):
        writer = csv.DictWriter(buf, fieldnames=list(TIDY_COLUMNS), lineterminator="\n",
                                extrasaction="ignore")
        writer.writeheader()
        for t in tables:
            for rec in t.tidy:
                writer.writerow({k: _csv_value(rec.get(k)) for k in TIDY_COLUMNS})
        return buf.getvalue()
    plain = csv.writer(buf, lineterminator="\n")
    for t in tables:
        plain.writerow(t.header)
        plain.writerows(t.rows)
    return buf.getvalue()


def _csv_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    return v
