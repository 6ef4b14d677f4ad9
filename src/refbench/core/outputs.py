"""Writing outputs: atomically, all or nothing (the paths were checked before any work started:
:mod:`refbench.core.output_checks`).

- :func:`atomic_write` / :func:`atomic_path` write to a temporary sibling renamed into place only
  on success; :func:`torch_save_atomic` and the plot writer use the same path.
- :func:`output_group`: the outputs of one command commit as they complete (a later step may read
  an earlier one), but if the command fails or is interrupted every one of them is undone: new
  files removed, replaced files restored, created folders removed.
- :func:`prepare_output_dir` / :func:`commit_output_dir`: a whole folder through a temporary
  sibling that records its owner, so a later run removes the partial folders of runs that were
  killed (or names those it cannot attribute).
"""

from __future__ import annotations

import contextlib
import contextvars
import glob
import gzip
import hashlib
import io
import json
import os
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from refbench.core.errors import OutputError
from refbench.core.output_checks import check_output_dir, output_error

# Temporary files and folders are created private (0600/0700); what is committed gets the
# permissions an ordinary open() or mkdir() would give under the user's umask.
_UMASK = os.umask(0)
os.umask(_UMASK)
OWNER_FILE = ".refbench-partial"


def _make_parents(folder: Path, target: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return those created (outermost first)."""
    missing: list[Path] = []
    q = folder
    while not q.exists() and q != q.parent:
        missing.append(q)
        q = q.parent
    created = []
    try:
        for d in reversed(missing):
            d.mkdir()
            created.append(d)
    except FileExistsError:
        if not folder.is_dir():
            _remove_dirs(created)
            raise OutputError("cannot write here (a folder in the path is a file)",
                              path=target) from None
    except OSError as exc:
        _remove_dirs(created)
        raise output_error(exc, target) from None
    return created


def _remove_dirs(created: Iterable[Path]) -> None:
    for d in reversed(list(created)):
        with contextlib.suppress(OSError):
            d.rmdir()  # only when empty


class _Group:
    """Outputs committed by one command, undone together if it fails."""

    def __init__(self) -> None:
        self.touched: dict[Path, Path | None] = {}  # target -> backup of the old file
        self.created: list[Path] = []

    def commit(self, tmp: Path, target: Path) -> None:
        if target not in self.touched:
            backup = None
            if target.is_file():
                backup = target.with_name(f".{target.name}.{os.getpid()}.{time.time_ns()}.bak")
                try:
                    os.link(target, backup)
                except OSError:
                    shutil.copy2(target, backup)
            self.touched[target] = backup
        os.replace(tmp, target)

    def rollback(self) -> None:
        for target, backup in reversed(list(self.touched.items())):
            with contextlib.suppress(OSError):
                if backup is not None:
                    os.replace(backup, target)
                else:
                    target.unlink()
        _remove_dirs(self.created)

    def finish(self) -> None:
        for backup in self.touched.values():
            if backup is not None:
                with contextlib.suppress(OSError):
                    backup.unlink()


_GROUP: contextvars.ContextVar[_Group | None] = contextvars.ContextVar("refbench_outputs",
                                                                      default=None)


@contextlib.contextmanager
def output_group() -> Iterator[None]:
    """All or nothing for the outputs written inside (nested groups join the outer one)."""
    if _GROUP.get() is not None:
        yield
        return
    group = _Group()
    token = _GROUP.set(group)
    try:
        yield
    except BaseException:
        group.rollback()
        raise
    else:
        group.finish()
    finally:
        _GROUP.reset(token)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` (same suffix, so format-by-extension writers work),
    renamed onto ``path`` when the block succeeds and removed when it fails."""
    target = Path(path)
    if target.is_dir():
        raise OutputError("is a folder; expected a file path", path=target)
    folder = target.parent if str(target.parent) else Path(".")
    created = _make_parents(folder, target)
    group = _GROUP.get()
    if group is not None:
        group.created.extend(created)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.{_owner_tag()}.",
                                    suffix=f".tmp{target.suffix}", dir=folder)
    except OSError as exc:
        _remove_dirs(created)
        raise output_error(exc, target) from None
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_UMASK)
        try:
            if group is not None:
                group.commit(tmp, target)
            else:
                os.replace(tmp, target)
        except OSError as exc:
            raise output_error(exc, target) from None
        remove_stale_temporaries(target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if group is None:
            _remove_dirs(created)
        raise


def _owner_tag() -> str:
    """``<pid>@<host hash>``: who writes a temporary file, so that a later run can tell one
    left by a killed process (SIGKILL runs no cleanup) from one still being written."""
    host = hashlib.sha1(socket.gethostname().encode()).hexdigest()[:8]
    return f"{os.getpid()}@{host}"


def remove_stale_temporaries(target: Path) -> list[Path]:
    """Remove the temporary siblings of ``target`` left by killed processes on this machine
    (called after each successful write of ``target``); returns those removed."""
    folder = target.parent if str(target.parent) else Path(".")
    host = _owner_tag().split("@")[1]
    removed = []
    for tmp in folder.glob(f".{glob.escape(target.name)}.*@*.tmp{glob.escape(target.suffix)}"):
        tag = tmp.name[len(target.name) + 2:].split(".", 1)[0]
        pid, _, owner_host = tag.partition("@")
        if owner_host != host or not pid.isdigit() or _alive(int(pid)):
            continue
        with contextlib.suppress(OSError):
            tmp.unlink()
            removed.append(tmp)
    return removed


class _Writer:
    """A text file being written whose OS errors (disk full, ...) name the output."""

    def __init__(self, fh: IO[str], target: Path) -> None:
        self._fh = fh
        self._target = target

    def write(self, text: str) -> int:
        try:
            return self._fh.write(text)
        except OSError as exc:
            raise output_error(exc, self._target) from None

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def close(self) -> None:
        try:
            self._fh.close()
        except OSError as exc:
            raise output_error(exc, self._target) from None


@contextlib.contextmanager
def atomic_write(path: str | Path) -> Iterator[_Writer]:
    """Write a UTF-8 text file (gzip-compressed when named ``.gz``) atomically."""
    target = Path(path)
    with atomic_path(target) as tmp:
        writer = _Writer(_open_for_write(tmp, compress=target.suffix == ".gz"), target)
        try:
            yield writer
        finally:
            writer.close()


def _open_for_write(path: Path, *, compress: bool) -> IO[str]:
    if not compress:
        return open(path, "w", encoding="utf-8", newline="")
    # mtime=0 and no file name in the header: identical input gives identical bytes.
    raw = gzip.GzipFile(filename="", mode="wb", fileobj=open(path, "wb"), mtime=0)  # noqa: SIM115
    return io.TextIOWrapper(raw, encoding="utf-8", newline="")


def write_text_atomic(path: str | Path, text: str) -> None:
    with atomic_write(path) as fh:
        fh.write(text)


def torch_save_atomic(obj: Any, path: str | Path) -> None:
    """``torch.save`` through :func:`atomic_path`: a crash mid-save never leaves a truncated
    checkpoint or model, nor a temporary file."""
    import torch

    with atomic_path(path) as tmp:
        try:
            # Into a file object, not a path: torch names the archive's records after the path
            # (the random temporary name), so the same weights would give different bytes.
            with open(tmp, "wb") as fh:
                torch.save(obj, fh)
        except OSError as exc:
            raise output_error(exc, path) from None


# --- whole folders -------------------------------------------------------------------------

def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale_partials(out: Path) -> list[str]:
    """Remove the partial folders of ``out`` left by killed runs on this machine; return notes
    about the ones removed and the ones left alone (a live owner, or no owner record)."""
    parent = out.parent if str(out.parent) else Path(".")
    notes = []
    host = socket.gethostname()
    for d in sorted(parent.glob(f".{glob.escape(out.name)}.*.partial")):
        if not d.is_dir():
            continue
        try:
            owner = json.loads((d / OWNER_FILE).read_text(encoding="utf-8"))
            pid, owner_host = int(owner["pid"]), str(owner["host"])
        except (OSError, ValueError, KeyError, TypeError):
            notes.append(f"{d} is a partial folder with no owner record; remove it if no run "
                         "is writing it")
            continue
        if owner_host == host and not _alive(pid):
            shutil.rmtree(d, ignore_errors=True)
            notes.append(f"removed {d}, left by an interrupted run (pid {pid})")
        else:
            notes.append(f"{d} belongs to a running process (pid {pid} on {owner_host}); left "
                         "alone")
    return notes


def prepare_output_dir(out: Path, *, overwrite: bool) -> Path:
    """Check that ``out`` may be (re)written and return a fresh temporary sibling folder.

    The caller fills the temporary folder and then calls :func:`commit_output_dir` (or
    :func:`discard_output_dir`). Partial folders of earlier killed runs are cleaned first.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OutputError("exists and is not a folder", path=out)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise OutputError("folder is not empty (use --overwrite to replace it)", path=out)
    parent = out.parent if str(out.parent) else Path(".")
    check_output_dir(out)
    for note in clean_stale_partials(out):
        print(f"note: {note}", file=sys.stderr)
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=parent))
        (tmp / OWNER_FILE).write_text(json.dumps({"pid": os.getpid(),
                                                  "host": socket.gethostname()}) + "\n",
                                      encoding="utf-8")
    except OSError as exc:
        raise output_error(exc, out) from None
    return tmp


def commit_output_dir(tmp: Path, out: Path) -> None:
    """Replace ``out`` by the completed temporary folder ``tmp``."""
    out = Path(out)
    try:
        (tmp / OWNER_FILE).unlink(missing_ok=True)
        os.chmod(tmp, 0o777 & ~_UMASK)
        if out.exists():
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, old)
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except OSError as exc:
        raise output_error(exc, out) from None


def discard_output_dir(tmp: Path) -> None:
    shutil.rmtree(tmp, ignore_errors=True)


class LineWriter:
    """Buffered text writer used by the generator's hot loop (large buffer, plain files)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(path, "w", encoding="utf-8", newline="", buffering=1 << 20)  # noqa: SIM115
        except OSError as exc:
            raise output_error(exc, path) from None

    def write(self, text: str) -> None:
        try:
            self._fh.write(text)
        except OSError as exc:
            raise output_error(exc, self._path) from None

    def close(self) -> None:
        try:
            self._fh.close()
        except OSError as exc:
            raise output_error(exc, self._path) from None
