"""Finding candidate strings in a context: whole tokens only, never inside another word."""

from __future__ import annotations

import re


def find_spans(context: str, needle: str) -> tuple[tuple[int, int], ...]:
    """Character spans of ``needle`` in ``context`` as whole words ("Marc" never in "Marcus")."""
    if not needle.strip():
        return ()
    pattern = re.compile(r"(?<![\w])" + re.escape(needle) + r"(?![\w])")
    return tuple((m.start(), m.end()) for m in pattern.finditer(context))
