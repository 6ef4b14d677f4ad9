"""Run one bad-input case through the real command line, in this process, and judge it.

The promise for a bad input: exit code 2, one clear line ``error E<code>: ...`` (the last line of
stderr; nothing that looks like a traceback), and nothing left behind in the case's folder
(no new file or folder, no temporary file). A case may also expect success (exit 0): an input
that looks odd but is valid (a long TSV cell, a missing parent folder that is created).

Works against any version of refbench (the sweep script runs it on older checkouts): it calls
``refbench.cli.main`` with ``sys.argv`` set, catching the ``SystemExit``.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

SUPPORT = "{S}"  # placeholder for the folder of valid support files
CASE = "{T}"  # placeholder for the case's own folder (also the working directory)


@dataclass(frozen=True)
class Case:
    """One row of the table: the command, the input the test makes, what must happen."""

    id: str
    args: tuple[str, ...]
    make: Callable[[Path, Path], None] | None = None  # (case folder, support): makes the input
    code: int = 2
    fragment: str = ""  # expected in stderr (failure) or stdout (success)
    cause: str = ""
    needs_non_root: bool = False  # permission cases: root can read and write anything
    xfail: str | None = None
    marks: tuple[str, ...] = field(default=())
    path: str = ""  # a folder (with {T}) put on sys.path: plugin distributions installed
    error_line: bool = False  # exit 1 that must still be one 'error E...' line

    @property
    def group(self) -> str:
        return " ".join(a for a in self.args[:2] if not a.startswith("-") and "{" not in a)


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    traceback: str | None


@contextlib.contextmanager
def plugins_on_path(folder: str) -> Iterator[None]:
    """``folder`` on ``sys.path`` with the registries (and what they cached) read afresh, and
    forgotten afterwards: the plugin distributions there are installed for one command."""
    if not folder:
        yield
        return
    import importlib

    def forget() -> None:
        for name in ("refbench.core.registry", "refbench.tasks.lookup",
                     "refbench.releases.manifest"):
            try:
                mod = importlib.import_module(name)
            except ImportError:
                continue
            for reg in ("TASKS", "MODELS", "TRAINERS"):
                if hasattr(mod, reg):
                    getattr(mod, reg)._plugins = None
                    getattr(mod, reg).shadowed = []
            for attr in ("_WARNED",):
                if isinstance(getattr(mod, attr, None), set):
                    getattr(mod, attr).clear()
            cached = getattr(mod, "all_releases", None)
            if hasattr(cached, "cache_clear"):
                cached.cache_clear()
        for name in [m for m, v in sys.modules.items()
                     if str(getattr(v, "__file__", "") or "").startswith(folder)]:
            del sys.modules[name]
        importlib.invalidate_caches()

    sys.path.insert(0, folder)
    forget()
    try:
        yield
    finally:
        sys.path.remove(folder)
        forget()


def invoke(args: list[str], *, cwd: Path, env: dict[str, str], path: str = "") -> Outcome:
    """Run ``refbench ARGS`` in-process with captured output (``path``: a folder of plugin
    distributions installed for this command)."""
    from refbench.cli import main

    out, err = io.StringIO(), io.StringIO()
    old_argv, old_cwd, old_env = sys.argv, os.getcwd(), dict(os.environ)
    old_term = signal.getsignal(signal.SIGTERM)
    sys.argv = ["refbench", *args]
    os.environ.update(env)
    os.chdir(cwd)
    code, tb = 0, None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                plugins_on_path(path):
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException:  # what would reach the user as a traceback
                tb = traceback.format_exc()
                code = 1
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)
        os.environ.clear()
        os.environ.update(old_env)
        signal.signal(signal.SIGTERM, old_term)
    return Outcome(code, out.getvalue(), err.getvalue(), tb)


def permissions_enforced() -> bool:
    """Whether file permissions stop this process (not for root with CAP_DAC_OVERRIDE; the
    permission cases can run as root under ``setpriv --bounding-set -dac_override,...``)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "x"
        p.write_text("x")
        os.chmod(p, 0)
        try:
            p.read_text()
        except PermissionError:
            return True
        return False


def snapshot(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def expand(args: tuple[str, ...], support: Path, case_dir: Path) -> list[str]:
    return [a.replace(SUPPORT, str(support)).replace(CASE, str(case_dir)) for a in args]



def problems(case: Case, outcome: Outcome, before: set[str], after: set[str]) -> list[str]:
    """Everything that breaks the promise (an empty list: the case keeps it)."""
    found = []
    if outcome.traceback is not None:
        last = outcome.traceback.strip().splitlines()[-1]
        found.append(f"traceback ({last})")
    if outcome.code != case.code:
        found.append(f"exit code {outcome.code}, expected {case.code}")
    if case.code == 2 or case.error_line:
        lines = [x for x in outcome.stderr.splitlines() if x.strip()]
        if not lines or not lines[-1].startswith("error E"):
            found.append(f"last stderr line is not 'error E...': {lines[-1:]!r}")
        if any(x.startswith(("Traceback", "Error:", "Usage:", "Aborted")) for x in lines):
            found.append("stderr holds a traceback or Click's own error text")
        if case.fragment and case.fragment not in outcome.stderr:
            found.append(f"message lacks {case.fragment!r}: {lines[-1:]!r}")
        new = sorted(after - before)
        if new:
            found.append(f"left behind: {', '.join(new[:5])}")
    elif case.code in (0, 1) and case.fragment and case.fragment not in outcome.stdout + \
            outcome.stderr:
        found.append(f"output lacks {case.fragment!r}")
    temps = sorted(x for x in after if x.endswith((".tmp", ".partial", ".bak"))
                   or ".tmp." in x)
    if temps:
        found.append(f"temporary files left: {', '.join(temps[:5])}")
    return found
