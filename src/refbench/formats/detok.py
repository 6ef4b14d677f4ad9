"""Detokenisation with character offsets, as the KITMUS release rebuilds its text.

No space before ``. , ) / ! ; ? :`` and before tokens starting with ``'``; no space after ``(``
and ``/``; straight double quotes alternate between opening (no space after) and closing (no
space before). The GAP TSV offsets refer to exactly this text.
"""

from __future__ import annotations

from collections.abc import Sequence

_NO_SPACE_BEFORE = frozenset({".", ",", ")", "/", "!", ";", "?", ":"})
_NO_SPACE_AFTER = frozenset({"(", "/"})


def detokenize(words: Sequence[str]) -> tuple[str, list[int]]:
    """Return the text and the character offset of every token."""
    out: list[str] = []
    offsets: list[int] = []
    pos = 0
    glue_next = True
    quote_open = False
    for word in words:
        space = not glue_next and word not in _NO_SPACE_BEFORE and word[:1] != "'"
        if word == '"':
            if quote_open:
                space = False
            quote_open = not quote_open
        if space:
            out.append(" ")
            pos += 1
        offsets.append(pos)
        out.append(word)
        pos += len(word)
        glue_next = word in _NO_SPACE_AFTER or (word == '"' and quote_open)
    return "".join(out), offsets
