"""The command line's memo: a command whose answer is a function of its inputs, asked again with
nothing changed, prints what it printed the first time without importing anything.

``refbench evaluate`` of one prediction file takes a third of a second, most of it parsing
files and importing refbench; asked again about the same files (a notebook cell re-run, a
Makefile, a script looping over systems) it is answered here in a few milliseconds, with the
same bytes on stdout and stderr and the same exit code.

What an answer depends on is *observed*, not declared. While a memoizable command runs
(:data:`MEMOIZED`), an audit hook (:func:`sys.addaudithook`) notes every file it opens and
every folder it lists, and at the end every module it imported is added. The entry keeps each
of those paths with its ``stat`` signature (device, inode, size, modification and change
times in ns) and is used again only when every signature still matches, under the same key:
the interpreter and its whole command line (``-c`` code included), the working folder, the
environment (less a few shell variables), whether stdout and stderr are terminals and the
terminal's size. A file created where the command looked for one and found none (an open that
failed) also misses; so does a new file in a folder one of its inputs is in.

Nothing is kept when the command failed, ran a subprocess, opened a socket or a database,
wrote or removed anything outside the cache folder, wrote to stdout or stderr other than as
text (``.buffer``, ``fileno()``), or read a file changed less than a second before it started
(a change within the file system's clock tick could go unseen). Every path the command is
given (``--gold FOLDER``) is an input too, with all it holds, since C code may read it unseen.
The memo lives in the cache folder (``memo/``, at most :data:`KEEP` entries) and can be
deleted at any time; ``REFBENCH_NO_MEMO=1`` turns it off. Nothing is ever executed from it: an
entry is text and signatures, read with :mod:`marshal`, and one that cannot be read is a miss.

This module imports only the standard library's always-loaded modules and :mod:`hashlib`.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import time

from refbench.core.cache_place import cache_folder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

#: Commands whose output is a function of their inputs (arguments, files, environment).
MEMOIZED = frozenset({"evaluate"})
#: Options that write a file: a command given one is run, never answered from the memo.
WRITES = ("--out", "--plot")
#: Shell variables that change between invocations and that no command reads.
VOLATILE = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})
#: Audit events after which nothing is kept: work outside this process, or a database.
TAINTS = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                    "os.fork", "os.forkpty", "socket.connect", "socket.bind",
                    "sqlite3.connect", "urllib.Request", "webbrowser.open"})
#: Audit events that change the file system (their first argument, the path).
CHANGES = frozenset({"os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.truncate",
                     "os.chmod", "os.chown", "os.utime", "os.link", "os.symlink",
                     "shutil.rmtree", "shutil.move", "shutil.copyfile", "shutil.copytree"})
KEEP = 256
#: At most this many files and folders under the paths a command is given (else not kept).
MAX_GIVEN = 20_000
FORMAT = 1
_WRITING = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_TICK_NS = 1_000_000_000


def enabled(argv: list[str]) -> bool:
    """Whether ``refbench ARGV`` may be answered from, or kept in, the memo."""
    if not argv or argv[0] not in MEMOIZED or os.environ.get("REFBENCH_NO_MEMO"):
        return False
    for arg in argv[1:]:
        if arg in ("-", "-h", "--help") or any(arg == w or arg.startswith(w + "=")
                                               for w in WRITES):
            return False
    return True


def replay(argv: list[str]) -> int | None:
    """Print the kept answer to ``refbench ARGV`` and return its exit code; None when there is
    none whose inputs are all unchanged (the command must then run)."""
    if not enabled(argv):
        return None
    try:
        with open(_entry(_key(argv)), "rb") as fh:
            entry = marshal.load(fh)
        form, deps, chunks, code = entry
        if form != FORMAT or any(_signature(path) != sig for path, sig in deps):
            return None
    except (OSError, ValueError, EOFError, TypeError):
        return None
    streams = {1: sys.stdout, 2: sys.stderr}
    try:
        for fd, text in chunks:
            streams[fd].write(text)
            streams[fd].flush()
    except BrokenPipeError:  # a reader that stopped early (| head): as the command itself does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return int(code)


def record(argv: list[str]) -> Recording | None:
    """Start observing ``refbench ARGV`` (call before the command's first import); None when
    the command is not memoizable."""
    return Recording(argv) if enabled(argv) else None


class Recording:
    """What one run opened, listed, changed and printed (see the module's text)."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.key = _key(argv)
        self.start_ns = time.time_ns()
        self.read: set[str] = set()
        self.listed: set[str] = set()
        self.changed: set[str] = set()
        self.chunks: list[tuple[int, str]] = []
        self.tainted = False
        self.active = True
        self.streams = (sys.stdout, sys.stderr)
        global _RECORDING
        if _RECORDING is None:  # a hook stays for the process's life: one, for every recording
            sys.addaudithook(_hook)
        _RECORDING = self
        sys.stdout = _Tee(sys.stdout, 1, self)
        sys.stderr = _Tee(sys.stderr, 2, self)

    def note(self, event: str, args: tuple[Any, ...]) -> None:
        """One audit event (see :func:`sys.addaudithook`)."""
        if not self.active:
            return
        if event == "open":
            path, mode, flags = args
            place = _place(path)
            if place is None:
                return
            writing = bool(flags & _WRITING) or (mode is not None and
                                                 any(c in str(mode) for c in "wax+"))
            (self.changed if writing else self.read).add(place)
        elif event in ("os.listdir", "os.scandir"):
            place = _place(args[0] if args and args[0] is not None else ".")
            if place is None:
                self.tainted = True  # a folder listed by descriptor: not followed
            else:
                self.listed.add(place)
        elif event in CHANGES:
            place = _place(args[0]) if args else None
            self.changed.add(place if place is not None else "?")
        elif event in TAINTS:
            self.tainted = True

    def finish(self, code: int) -> None:
        """Stop observing; keep the run's answer when it may be replayed."""
        self.active = False
        sys.stdout, sys.stderr = self.streams
        if code != 0 or self.tainted:
            return
        cache = os.path.abspath(cache_folder())
        outside = [p for p in self.changed if not _within(p, cache)]
        if outside:
            return
        data = {p for p in self.read if not _within(p, cache) and not p.endswith(".pyc")}
        given = _given_paths(self.argv)
        if given is None:
            return
        deps = data | {os.path.dirname(p) for p in data} | given | \
            {p for p in self.listed if not _within(p, cache)} | _module_files()
        signed = sorted((p, _signature(p)) for p in deps)
        recent = self.start_ns - _TICK_NS
        if any(sig is not None and max(sig[3], sig[4]) >= recent for _, sig in signed):
            return
        _save(_entry(self.key), (FORMAT, signed, self.chunks, code))


_RECORDING: Recording | None = None


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if _RECORDING is not None:
        _RECORDING.note(event, args)


class _Tee:
    """A text stream that notes what is written to it; raw access (``buffer``, ``fileno``)
    means output the memo cannot see, and nothing is kept."""

    def __init__(self, stream: TextIO, fd: int, recording: Recording) -> None:
        self._stream = stream
        self._fd = fd
        self._recording = recording

    def write(self, text: str) -> int:
        written = self._stream.write(text)
        if isinstance(text, str) and self._recording.active:
            self._recording.chunks.append((self._fd, text))
        return written

    def __getattr__(self, name: str) -> Any:
        if name in ("buffer", "fileno"):
            self._recording.tainted = True
        return getattr(self._stream, name)


def _given_paths(argv: list[str]) -> set[str] | None:
    """Every argument (or ``--option=value``) that names a file or folder, folders with all
    they hold: read by C code too (which no audit event reports). None: too many to check."""
    found: set[str] = set()
    for arg in argv[1:]:
        value = arg.partition("=")[2] if arg.startswith("--") else arg
        if not value or not os.path.exists(value):
            continue
        found.add(os.path.abspath(value))
        if os.path.isdir(value):
            for folder, subfolders, files in os.walk(value):
                found.update(os.path.abspath(os.path.join(folder, n))
                             for n in (*subfolders, *files))
                if len(found) > MAX_GIVEN:
                    return None
    return found


def _key(argv: list[str]) -> str:
    env = sorted((k, v) for k, v in os.environ.items() if k not in VOLATILE)
    ttys = tuple(_isatty(s) for s in (sys.stdout, sys.stderr))
    try:
        size = tuple(os.get_terminal_size()) if any(ttys) else None
    except OSError:
        size = None
    material = repr((FORMAT, sys.executable, sys.version, sys.orig_argv, sys.path,
                     os.getcwd(), argv, env, ttys, size))
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()


def _entry(key: str) -> str:
    return os.path.join(cache_folder(), "memo", key)


def _save(target: str, entry: Any) -> None:
    """Write the entry whole or not at all, and keep at most :data:`KEEP` (the oldest go)."""
    folder = os.path.dirname(target)
    tmp = f"{target}.{os.getpid()}.tmp"
    try:
        os.makedirs(folder, exist_ok=True)
        with open(tmp, "wb") as fh:
            marshal.dump(entry, fh)
        os.replace(tmp, target)
        names = [n for n in os.listdir(folder) if not n.endswith(".tmp")]
        if len(names) > KEEP:
            kept = sorted(names, key=lambda n: _mtime(os.path.join(folder, n)))
            for name in kept[:len(names) - KEEP]:
                os.remove(os.path.join(folder, name))
    except (OSError, ValueError):
        import contextlib

        with contextlib.suppress(OSError):
            os.remove(tmp)


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def _signature(path: str) -> tuple[int, int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _module_files() -> set[str]:
    files = set()
    for module in list(sys.modules.values()):
        source = getattr(module, "__file__", None)
        if isinstance(source, str):
            files.add(os.path.abspath(source))
    return files


def _place(path: object) -> str | None:
    if isinstance(path, int):
        return None
    try:
        return os.path.abspath(os.fsdecode(path))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + os.sep)


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False
