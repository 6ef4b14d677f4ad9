"""The ``refbench`` command line (:func:`main`); the Click app is :mod:`refbench.cli.root`.

This module imports nothing until a command runs, so that a command answered from the memo
(:mod:`refbench.cli.memo`) never imports Click or any of refbench's own modules. The app is
importable from here too (``from refbench.cli import app``).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import click


def main() -> None:
    """Console entry point: expected failures print one line and exit 2; Ctrl-C exits 130 and
    SIGTERM 143, each saying what was kept."""
    from refbench.cli import memo

    argv = sys.argv[1:]
    code = memo.replay(argv)
    if code is not None:
        sys.exit(code)
    recording = memo.record(argv)
    from refbench.core.commands import run_guarded
    from refbench.core.interrupt import handle_sigterm

    handle_sigterm()
    from refbench.cli.root import app

    code = run_guarded(app)
    if recording is not None:
        recording.finish(code)
    sys.exit(code)


def __getattr__(name: str) -> click.Group:
    if name == "app":
        from refbench.cli.root import app

        return app
    raise AttributeError(f"module 'refbench.cli' has no attribute {name!r}")
