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
    text, offsets, _, _ = detokenize_from(words)
    return text, offsets


def detokenize_from(words: Sequence[str], glue_next: bool = True, quote_open: bool = False
                    ) -> tuple[str, list[int], bool, bool]:
    """:func:`detokenize` continued from a state (the defaults: the start of a text): the text,
    the offsets, and the state after the last word (no space before the next word; a double
    quote is open), so texts can be detokenised in pieces and joined (:func:`join_pieces`)."""
    out: list[str] = []
    offsets: list[int] = []
    pos = 0
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
    return "".join(out), offsets, glue_next, quote_open


Piece = tuple[str, list[int], bool, bool]  # detokenize_from's result


def join_pieces(first_words: Sequence[str], first: Piece, second_words: Sequence[str],
                second: Piece) -> Piece:
    """``detokenize_from(a + b)`` from ``first = detokenize_from(a)`` and ``second =
    detokenize_from(b)`` (both from the start state), without detokenising again.

    From the start state the first word of ``b`` never takes a space; after ``a`` it may. When
    no quote is open after ``a`` nothing else differs (the state after that first word is the
    same either way); with a quote open it detokenises ``a + b`` again.
    """
    text_a, offs_a, glue, quote = first
    text_b, offs_b, glue_b, quote_b = second
    if not second_words:
        return first
    if not offs_a:
        return second
    if quote:
        return detokenize_from([*first_words, *second_words])
    w = second_words[0]
    lead = int(not glue and w not in _NO_SPACE_BEFORE and w[:1] != "'")
    shift = len(text_a) + lead
    return (text_a + " " * lead + text_b, offs_a + [o + shift for o in offs_b], glue_b, quote_b)
