"""A benchmark's page of the documentation's task catalogue (``docs/tasks/<name>.md``), made
from its card and its task class, so that the page and the card cannot say different things.

The card's ``[catalogue]`` table holds the prose (what the benchmark is, where it comes from,
its licence, formats, metrics and the release's known defects); the task class adds what the
code decides (the metric keys of every result, the card's Hub licence identifier, the BibTeX).
``scripts/gen_catalogue.py`` writes the pages; ``tests/docs/test_catalogue.py`` fails when a
page is not what this module makes of its card, or a registered task has no page.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from refbench.tasks.base import Task

#: The table rows of a page: (catalogue key, row label), in order; a key the card lacks has no
#: row.
ROWS = (("source", "Source"), ("licence", "Licence"), ("citation", "Citation"),
        ("formats_read", "Formats read"), ("formats_written", "Formats written"),
        ("metrics", "Metrics"), ("tools", "Tools"))
WIDTH = 96
HEADER = ("<!-- Generated from src/refbench/tasks/{name}/card.toml by scripts/gen_catalogue.py: "
          "edit the card, not this page. -->")


def catalogue_page(task: Task) -> str:
    """The Markdown page of ``task``: heading, opening paragraph, the table, the card's own
    sections, the BibTeX and the known defects of the release."""
    card = task.card
    cat = card.catalogue
    out = [HEADER.format(name=task.name), "", f"# {card.title}", ""]
    if cat.get("about"):
        out += [cat["about"], ""]
    out += ["| | |", "|---|---|"]
    for key, label in ROWS:
        if not cat.get(key):
            continue
        text = " ".join(str(cat[key]).split())
        if key == "licence":
            text += f" (Hub identifier of exports: `{card.licence}`)"
        out.append(f"| {label} | {text} |")
    keys = ", ".join(f"`{m}`" for m in task.headline_metrics)
    out.append(f"| Metric keys in tables | {keys} (those a result has; every key is in its "
               "`metrics.json` and `--json`) |")
    out.append("")
    if cat.get("sections"):
        out += [cat["sections"], ""]
    if card.bibtex:
        out += ["## Citation", "", "```bibtex", card.bibtex, "```", ""]
    defects = cat.get("known_defects", ())
    out += ["## Known defects of the release", ""]
    if defects:
        for defect in defects:
            out += textwrap.wrap(" ".join(defect.split()), WIDTH, initial_indent="- ",
                                 subsequent_indent="  ", break_long_words=False,
                                 break_on_hyphens=False)
    else:
        out.append("None recorded in the card.")
    return "\n".join(out).rstrip("\n") + "\n"
