"""What an interrupted command keeps: said when Ctrl-C stops it.

Outputs are written atomically and as a group (:mod:`refbench.core.outputs`), so by default an
interrupted command has written nothing. Work that is deliberately kept across an interruption
(predictions cached in the results store, training checkpoints) is announced here as it
happens, and the command line prints the latest note when the user presses Ctrl-C.
"""

from __future__ import annotations

import signal
from types import FrameType

NOTHING_KEPT = "nothing was written (outputs appear only when complete)"
_notes: list[str] = []


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so every clean-up (temporary files, partial folders,
    output groups, worker processes) runs as it does for Ctrl-C."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


def handle_sigterm() -> None:
    """Turn SIGTERM into :class:`Terminated` (the command line installs this)."""
    signal.signal(signal.SIGTERM, _on_sigterm)


def note_kept(text: str) -> None:
    """Say what an interruption from now on would leave behind (replaces the last note)."""
    _notes[:] = [text]


def kept() -> str:
    return _notes[-1] if _notes else NOTHING_KEPT


def reset() -> None:
    _notes.clear()
