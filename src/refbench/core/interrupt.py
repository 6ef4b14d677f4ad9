"""What an interrupted command keeps: said when Ctrl-C stops it.

Outputs are written atomically and as a group (:mod:`refbench.core.outputs`), so by default an
interrupted command has written nothing. Work that is deliberately kept across an interruption
(predictions cached in the results store, training checkpoints) is announced here as it
happens, and the command line prints the latest note when the user presses Ctrl-C.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from types import FrameType

NOTHING_KEPT = "nothing was written (outputs appear only when complete)"
_notes: list[str | Callable[[], str]] = []


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so every clean-up (temporary files, partial folders,
    output groups, worker processes) runs as it does for Ctrl-C."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


def handle_sigterm() -> None:
    """Turn SIGTERM into :class:`Terminated` (the command line installs this)."""
    signal.signal(signal.SIGTERM, _on_sigterm)


def note_kept(text: str | Callable[[], str]) -> None:
    """Say what an interruption from now on would leave behind (replaces the last note): the
    text, or a function that says it when the interruption comes (what is on disk then)."""
    _notes[:] = [text]


def kept() -> str:
    if not _notes:
        return NOTHING_KEPT
    note = _notes[-1]
    return note if isinstance(note, str) else note()


def reset() -> None:
    _notes.clear()
