"""What ``refbench study export`` and ``refbench study agreement`` do, as library functions:
a study's answers in other layouts, and the agreement between its annotators. Neither
prints. (``study create`` is each study type's own command; ``study serve`` is the study
server's launcher, :func:`refbench.web.study.server.serve`, a floor above this API.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def export_study(study_file: Path, *, fmt: str = "csv",
                 out: Path | None = None) -> tuple[str | None, list[Path]]:
    """A study's answers as item,annotator,label CSV (``fmt="csv"``), everything as JSON
    (``"json"``) or the data format of the study's task (``"native"``, files in the folder
    ``out``): the text when ``out`` is None, else None, and the files written."""
    from refbench.studies.export import export

    text, files = export(study_file, fmt, out)
    return text, list(files)


def agreement(source: Path) -> dict[str, Any]:
    """The agreement report of a study file, or of answers exported as CSV (a ``.csv``
    source): Fleiss' kappa, Krippendorff's alpha, percent agreement, majorities and accuracy
    per condition (TNE: pairwise CoNLL F1 and link F1), each annotator's progress."""
    from refbench.core.inputs import format_name
    from refbench.studies.report import csv_agreement, study_agreement

    name = format_name(source)
    return csv_agreement(source) if name.endswith(".csv") else study_agreement(source)
