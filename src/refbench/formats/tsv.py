"""Tab-separated files with a header: every refbench TSV reader goes through here, so column
checks and error messages (file, line, expected columns) are the same everywhere."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from refbench.core.errors import RefbenchError
from refbench.core.io import read_lines

Row = tuple[int, dict[str, str]]


def split_tsv_line(line: str, *, quoted: bool = False) -> list[str]:
    """Cells of one line; ``quoted`` honours csv/pandas double-quoting."""
    if quoted:
        return next(csv.reader([line], delimiter="\t", quotechar='"'))
    return line.split("\t")


def read_tsv(path: str | Path, *, required: Sequence[str], quoted: bool = False,
             what: str = "TSV") -> tuple[list[str], list[Row]]:
    """(header, [(line number, row)]) of a headed TSV; blank lines are skipped."""
    header: list[str] | None = None
    rows: list[Row] = []
    for number, line in read_lines(path):
        if not line.strip():
            continue
        cells = split_tsv_line(line, quoted=quoted)
        if header is None:
            header = cells
            missing = [c for c in required if c not in header]
            if missing:
                raise RefbenchError(f"{what} header lacks column(s) {', '.join(missing)}; "
                                    f"expected {', '.join(required)}", path=path, line=number)
            continue
        if len(cells) != len(header):
            raise RefbenchError(f"expected {len(header)} tab-separated columns, found "
                                f"{len(cells)}", path=path, line=number)
        rows.append((number, dict(zip(header, cells, strict=True))))
    if header is None:
        raise RefbenchError("file is empty", path=path)
    return header, rows
