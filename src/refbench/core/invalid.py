"""What a reader does with a malformed instance: stop (the default) or, on request, skip it and
say so.

A genuinely malformed instance in a file of thousands stops the command with an error naming
the file, line or id and the reason. With ``--skip-invalid`` the reader is handed an
:class:`InvalidInstances` collector instead: each malformed instance is recorded (id, where,
reason) and skipped, and the command reports the count and the ids in its output and in the
result JSON. Nothing is ever skipped silently: a reader without a collector raises.

Only per-instance problems are skippable. A file that cannot be read at all (missing, not
UTF-8, a broken header) still stops the command.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from refbench.core.errors import RefbenchError

T = TypeVar("T")
U = TypeVar("U")

SHOWN_IDS = 100  # ids listed in a result; the count is always complete


class InvalidInstances:
    """A collector of skipped instances (``--skip-invalid``)."""

    def __init__(self) -> None:
        self.skipped: list[dict[str, Any]] = []

    def skip(self, exc: RefbenchError, *, item: str | None = None) -> None:
        """Record ``exc`` as one skipped instance (``item``: its id when the reader knows it)."""
        self.skipped.append({"id": item or exc.item or exc.where() or "?",
                             "where": exc.where(), "reason": exc.message})

    def __len__(self) -> int:
        return len(self.skipped)

    def report(self) -> dict[str, Any]:
        """The fields a result carries: ``n_skipped_invalid`` and the first ids with reasons."""
        return {"n_skipped_invalid": len(self.skipped),
                "skipped_invalid": self.skipped[:SHOWN_IDS]}

    def summary(self) -> str:
        """One line for people: how many were skipped and the first few ids."""
        shown = ", ".join(str(s["id"]) for s in self.skipped[:5])
        more = f" and {len(self.skipped) - 5} more" if len(self.skipped) > 5 else ""
        first = self.skipped[0]["reason"] if self.skipped else ""
        return (f"skipped {len(self.skipped)} malformed instance(s) (--skip-invalid): "
                f"{shown}{more}; first reason: {first}")


def reject(on_invalid: InvalidInstances | None, exc: RefbenchError, *,
           item: str | None = None) -> None:
    """Raise ``exc``, unless the caller asked to skip malformed instances."""
    if on_invalid is None:
        raise exc
    on_invalid.skip(exc, item=item)


def parse_each(items: Iterable[tuple[str | None, T]], parse: Callable[[T], U],
               on_invalid: InvalidInstances | None) -> Iterator[U]:
    """``parse`` every raw record; a malformed one is rejected (see :func:`reject`).

    ``items`` pairs each raw record with its id where known (None: the error says where).
    """
    for item, raw in items:
        try:
            parsed = parse(raw)
        except RefbenchError as exc:
            reject(on_invalid, exc, item=item)
            continue
        yield parsed
