"""Tab-separated files with a header: every refbench TSV reader goes through here, so column
checks and error messages (file, line, expected columns) are the same everywhere."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from refbench.core.errors import RefbenchError
from refbench.core.invalid import InvalidInstances, reject
from refbench.core.io import read_lines

Row = tuple[int, dict[str, str]]
_FIELD_LIMIT = 2**31 - 1


def allow_long_fields() -> None:
    """Lift the csv module's 128 KiB cell limit: a long text is data, not an error (each cell
    is bounded by its line, which is read whole anyway)."""
    if csv.field_size_limit() < _FIELD_LIMIT:
        csv.field_size_limit(_FIELD_LIMIT)


def split_tsv_line(line: str, *, quoted: bool = False, path: str | Path | None = None,
                   number: int | None = None) -> list[str]:
    """Cells of one line; ``quoted`` honours csv/pandas double-quoting."""
    if not quoted or '"' not in line:
        return line.split("\t")
    allow_long_fields()
    try:
        return next(csv.reader([line], delimiter="\t", quotechar='"', strict=True))
    except csv.Error as exc:
        raise RefbenchError(f"badly quoted cell ({exc})", path=path, line=number) from None


def read_tsv(path: str | Path, *, required: Sequence[str], quoted: bool = False,
             what: str = "TSV", on_invalid: InvalidInstances | None = None
             ) -> tuple[list[str], list[Row]]:
    """(header, [(line number, row)]) of a headed TSV; blank lines are skipped. A row with the
    wrong number of cells is an error, or with ``on_invalid`` skipped and recorded."""
    header: list[str] | None = None
    rows: list[Row] = []
    for number, line in read_lines(path):
        if not line.strip():
            continue
        if header is None:
            header = split_tsv_line(line, quoted=quoted, path=path, number=number)
            missing = [c for c in required if c not in header]
            if missing:
                raise RefbenchError(f"{what} header lacks column(s) {', '.join(missing)}; "
                                    f"expected {', '.join(required)}", path=path, line=number)
            continue
        try:
            cells = split_tsv_line(line, quoted=quoted, path=path, number=number)
            if len(cells) != len(header):
                raise RefbenchError(f"expected {len(header)} tab-separated columns, found "
                                    f"{len(cells)}", path=path, line=number)
        except RefbenchError as exc:
            reject(on_invalid, exc, item=f"line {number}")
            continue
        rows.append((number, dict(zip(header, cells, strict=True))))
    if header is None:
        raise RefbenchError("file is empty", path=path)
    return header, rows
