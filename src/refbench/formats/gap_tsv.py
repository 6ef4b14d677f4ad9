"""GAP TSV reader (ID, Text, Pronoun, Pronoun-offset, A, A-offset, A-coref, B, ..., URL).

Cells may be quoted as csv/pandas write them (the KITMUS release does so for texts with a
double quote). Offsets are character offsets into Text; a row whose offsets do not point at the
named strings is an error naming the file, line and id.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from refbench.core.errors import RefbenchError
from refbench.core.invalid import InvalidInstances, parse_each
from refbench.core.io import read_lines
from refbench.formats.tsv import read_tsv, split_tsv_line

GAP_COLUMNS = ("ID", "Text", "Pronoun", "Pronoun-offset", "A", "A-offset", "A-coref", "B",
               "B-offset", "B-coref")


def format_row(cells: Sequence[str]) -> str:
    """One TSV line; cells holding a double quote are quoted as csv/pandas write them."""
    out = []
    for c in cells:
        if '"' in c or "\t" in c or "\n" in c:
            c = '"' + c.replace('"', '""') + '"'
        out.append(c)
    return "\t".join(out) + "\n"


@dataclass(frozen=True)
class GapRow:
    id: str
    text: str
    pronoun: str
    pronoun_offset: int
    a: str
    a_offset: int
    a_coref: bool
    b: str
    b_offset: int
    b_coref: bool
    url: str
    line: int


def _bool(value: str, *, path: Path | str, line: int, column: str, item: str) -> bool:
    v = value.strip().upper()
    if v not in ("TRUE", "FALSE"):
        raise RefbenchError(f"{column} must be TRUE or FALSE, found {value!r}", path=path,
                            line=line, item=item)
    return v == "TRUE"


def parse_offset(value: str, column: str, *, path: Path | str, line: int, item: str) -> int:
    """A character offset: a non-negative integer (``-198`` would silently count from the
    end of the text)."""
    v = value.strip()
    if not v.isdigit():
        raise RefbenchError(f"{column} must be a non-negative integer, found {value!r}",
                            path=path, line=line, item=item)
    return int(v)


def gap_row(number: int, row: dict[str, str], *, path: Path | str) -> GapRow:
    """One gold row, checked: offsets are non-negative and point at the named strings."""
    item = row["ID"]
    offsets = [parse_offset(row[c], c, path=path, line=number, item=item)
               for c in ("Pronoun-offset", "A-offset", "B-offset")]
    text = row["Text"]
    for name, off in zip(("Pronoun", "A", "B"), offsets, strict=True):
        if not row[name] or text[off:off + len(row[name])] != row[name]:
            raise RefbenchError(
                f"{name}-offset {off} does not point at {row[name]!r} in Text "
                f"(found {text[off:off + len(row[name])]!r})", path=path, line=number, item=item)
    return GapRow(item, text, row["Pronoun"], offsets[0], row["A"], offsets[1],
                  _bool(row["A-coref"], path=path, line=number, column="A-coref", item=item),
                  row["B"], offsets[2],
                  _bool(row["B-coref"], path=path, line=number, column="B-coref", item=item),
                  row.get("URL", ""), number)


def read_gap(path: str | Path, *, on_invalid: InvalidInstances | None = None
             ) -> Iterator[GapRow]:
    """Gold rows; a malformed row is an error, or with ``on_invalid`` skipped and recorded."""
    _, rows = read_tsv(path, required=GAP_COLUMNS, quoted=True, what="GAP",
                       on_invalid=on_invalid)
    return parse_each(((row["ID"], (n, row)) for n, row in rows),
                      lambda x: gap_row(x[0], x[1], path=path), on_invalid)


SYSTEM_COLUMNS = ("ID", "A-coref", "B-coref")


def system_label(value: str) -> bool | None:
    """A system file's TRUE/FALSE (any case); anything else is None (the official scorer
    counts it as a missing annotation)."""
    v = value.strip().lower()
    return True if v == "true" else False if v == "false" else None


def read_gap_system(path: str | Path) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows of a system output: the GAP scorer's headerless ``ID A-coref B-coref`` file, or any
    file whose header names ID, A-coref and B-coref (the 9- and 11-column formats)."""
    header: list[str] | None = None
    for number, line in read_lines(path):
        if not line.strip():
            continue
        cells = split_tsv_line(line, quoted=True, path=path, number=number)
        if header is None:
            if all(c in cells for c in SYSTEM_COLUMNS):
                header = cells
                continue
            header = list(SYSTEM_COLUMNS)
        if len(cells) != len(header):
            raise RefbenchError(f"expected {len(header)} tab-separated columns, found "
                                f"{len(cells)}", path=path, line=number)
        yield number, dict(zip(header, cells, strict=True))
