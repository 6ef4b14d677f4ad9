"""Output paths checked before any work starts (when a command's options are parsed).

- :func:`check_output_file` / :func:`check_output_dir` say up front that an output path is
  unusable: a folder where a file is expected, a file where a folder is expected, a read-only
  place, ``/proc/...``. Missing parent folders are fine: they are created when the output is
  written (and removed again if the write fails).
- :func:`check_not_input`: an output path that is one of the command's inputs (the same file
  under any spelling, or a folder holding an input that writing it would replace) is refused
  before anything is read, instead of overwriting the input with the result.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from refbench.core.errors import OutputError


def output_error(exc: OSError, path: str | Path) -> OutputError:
    """The error a person should see when ``path`` cannot be written."""
    if isinstance(exc, IsADirectoryError):
        return OutputError("is a folder; expected a file path", path=path)
    if isinstance(exc, NotADirectoryError):
        return OutputError("cannot write here (a folder in the path is a file)", path=path)
    if isinstance(exc, PermissionError):
        return OutputError("cannot write here (permission denied)", path=path)
    reasons = {errno.EROFS: "read-only file system", errno.ENOSPC: "no space left on device",
               errno.EDQUOT: "disk quota exceeded", errno.ENAMETOOLONG: "file name too long"}
    reason = reasons.get(exc.errno or 0) or exc.strerror or str(exc)
    return OutputError(f"cannot write here ({reason})", path=path)


def _existing_ancestor(p: Path) -> Path:
    q = p.absolute()
    while not q.exists() and q != q.parent:
        q = q.parent
    return q


def _probe(folder: Path, target: Path) -> None:
    """Create and remove a file in ``folder``: the one reliable test that it is writable."""
    try:
        fd, name = tempfile.mkstemp(prefix=".refbench-probe.", dir=folder)
    except OSError as exc:
        raise output_error(exc, target) from None
    os.close(fd)
    os.unlink(name)


def check_output_file(path: str | Path) -> Path:
    """``path`` once it is known that a file can be written there (parents may be missing)."""
    p = Path(path)
    if p.is_dir():
        raise OutputError("is a folder; expected a file path", path=p)
    if p.exists() and not p.is_file():
        raise OutputError("exists and is not a regular file", path=p)
    folder = _existing_ancestor(p.parent if str(p.parent) else Path("."))
    if not folder.is_dir():
        raise OutputError(f"cannot write here ({folder} is a file, not a folder)", path=p)
    _probe(folder, p)
    return p


def check_output_dir(path: str | Path) -> Path:
    """``path`` once it is known that a folder can be written there (it may not exist yet)."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputError("exists and is not a folder", path=p)
    folder = _existing_ancestor(p)
    if not folder.is_dir():
        raise OutputError(f"cannot write here ({folder} is a file, not a folder)", path=p)
    _probe(folder, p)
    return p


def _resolved(p: Path) -> Path:
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return p.absolute()


def same_path(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name the same file or folder (hard links, symlinks and ``./x`` vs
    ``x`` included); paths that do not exist yet are compared resolved."""
    a, b = Path(a), Path(b)
    with contextlib.suppress(OSError):
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    return _resolved(a) == _resolved(b)


def check_not_input(output: str | Path, inputs: Iterable[tuple[str | Path, str]], *,
                    kind: str = "file") -> None:
    """Refuse an output that would destroy an input of the same command: ``output`` is one of
    ``inputs`` (``(path, option name)`` pairs), or, for a folder output (``kind="dir"``, which
    is replaced as a whole), holds one of them. Called as soon as both paths are known, so the
    refusal comes before any work and nothing is written."""
    out = Path(output)
    for path, name in inputs:
        p = Path(path)
        if same_path(out, p):
            raise OutputError(f"is also an input of this command ({name}); writing the output "
                              "there would overwrite it: choose another output path", path=out)
        if kind == "dir" and _resolved(p).is_relative_to(_resolved(out)):
            raise OutputError(f"holds an input of this command ({name} {p}); writing the "
                              "output folder would replace it: choose another folder", path=out)
