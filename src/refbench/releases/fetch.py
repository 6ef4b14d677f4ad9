"""``refbench data get``: download a release's files, check each one's sha256, keep only good ones.

Each file is streamed (requests) to a temporary file beside its target,
``.<name>.refbench-download``, its sha256 computed as it arrives and compared with the pinned
one, and only then moved into place; a wrong checksum, a truncated file, a connection dropped
mid-body or Ctrl-C leaves nothing behind. A process killed outright (SIGKILL, a power cut)
cannot remove its temporary file: the next ``data get`` of that release removes it and says
so. A file already there with the right checksum is not fetched again.

Every wait is bounded in total, not only per read: a file must arrive within a deadline of
``CONNECT_TIMEOUT + READ_TIMEOUT`` seconds plus its size at a minimum rate (``--min-rate`` or
``$REFBENCH_MIN_RATE``, bytes per second, default 20 kB/s), so a mirror that trickles one
byte every few seconds is one error naming the deadline and the rate, not a download that
never ends. A host that cannot be reached (no network) is one error naming the host and the
file, and the two ways out: ``--mirror URL`` and ``REFBENCH_DATA_DIR``.

From a mirror (``--mirror URL``, laid out like the reference copy of the releases) each file
comes from ``URL/<its path in that copy>`` and is checked against that copy's sha256 (the
gzipped form where the copy keeps one). A mirror may be a local folder (``../shared/data``) or a
``file://`` URL: the file is then copied, and checked the same way. A file with no published
URL can only come from a mirror; without one it is skipped, saying so.

One ``data get`` writes into a data folder at a time: a second one into the same folder waits
for the first (an flock on the folder, at most ``LOCK_WAIT`` seconds, saying so), then finds
the files the first fetched and keeps them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from refbench.core.errors import E_DOWNLOAD, RefbenchError, UsageError
from refbench.releases.cache import verified
from refbench.releases.manifest import Release, ReleaseFile

CONNECT_TIMEOUT = 15.0  # seconds to connect; reads wait at most READ_TIMEOUT between bytes
READ_TIMEOUT = 60.0
MIN_RATE = 20_000  # bytes per second: with the two above, each file's total deadline
MIN_RATE_ENV = "REFBENCH_MIN_RATE"
PROGRESS_BYTES = 1_000_000  # a progress bar for files this large or larger
PARTIAL = ".refbench-download"
LOCK_WAIT = 1800.0  # seconds a second data get waits for the first into the same folder


@dataclass(frozen=True)
class Fetched:
    """What ``get`` did with one file: ``kept`` (already there), ``fetched`` or ``skipped``."""

    entry: ReleaseFile
    action: str
    path: Path | None
    source: str | None


def min_rate(given: float | None = None) -> float:
    """The minimum rate (bytes per second): ``given``, else ``$REFBENCH_MIN_RATE``, else
    :data:`MIN_RATE`; a value that is not a positive number is a usage error."""
    if given is not None:
        value: object = given
        where = "--min-rate"
    else:
        value = os.environ.get(MIN_RATE_ENV, "") or MIN_RATE
        where = f"${MIN_RATE_ENV}"
    try:
        rate = float(value)  # type: ignore[arg-type]
    except ValueError:
        rate = -1.0
    if not rate > 0 or rate == float("inf"):
        raise UsageError(f"{where} {value!r}: expected a rate in bytes per second above 0")
    return rate


def deadline(size: int, rate: float) -> float:
    """Seconds a file of ``size`` bytes may take in all: connecting and a first answer, plus
    its bytes at ``rate``."""
    return CONNECT_TIMEOUT + READ_TIMEOUT + size / rate


def partial_path(target: Path) -> Path:
    """Where a download of ``target`` is written until it is whole and checked."""
    return target.with_name(f".{target.name}{PARTIAL}")


def mirror_source(mirror: str) -> str:
    """``--mirror`` checked: an http(s) URL as it is, a ``file://`` URL or a local folder as the
    folder's absolute path (a UsageError when that folder does not exist)."""
    if mirror.startswith(("http://", "https://")):
        return mirror
    if mirror.startswith("file://"):
        parts = urllib.parse.urlsplit(mirror)
        if parts.netloc not in ("", "localhost"):
            raise UsageError(f"--mirror {mirror}: a file:// URL names a folder on this "
                             "machine (file:///path)")
        folder = Path(urllib.parse.unquote(parts.path))
    elif "://" in mirror:
        raise UsageError(f"--mirror expects an http://, https:// or file:// URL or a local "
                         f"folder, got {mirror!r}")
    else:
        folder = Path(mirror).expanduser()
    if not folder.is_dir():
        raise UsageError(f"--mirror {mirror}: no such folder (a mirror is a folder or URL laid "
                         "out like the reference copy of the releases)")
    return str(folder.resolve())


def _local(url: str) -> bool:
    return not url.startswith(("http://", "https://"))


def _source(entry: ReleaseFile, mirror: str | None) -> tuple[str, str, str] | None:
    """(url or local path, relative path it lands at, sha256) for this file, or None when not
    fetchable."""
    if mirror:
        return f"{mirror.rstrip('/')}/{entry.mirror}", entry.mirror, entry.mirror_sha256
    if entry.url is None:
        return None
    return entry.url, entry.file, entry.sha256


class _TooSlow(Exception):
    pass


def _stream(url: str, tmp: Path, size: int, limit: float, progress: bool) -> str:
    """Stream ``url`` into ``tmp`` within ``limit`` seconds in all; its sha256."""
    import requests

    start = time.monotonic()
    digest = hashlib.sha256()
    bar = None
    with requests.get(url, stream=True, timeout=(CONNECT_TIMEOUT, min(READ_TIMEOUT, limit))
                      ) as resp:
        resp.raise_for_status()
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=size, unit="B", unit_scale=True, desc=tmp.name, leave=False)
        try:
            with tmp.open("wb") as fh:
                while True:
                    if time.monotonic() - start > limit:
                        raise _TooSlow()
                    chunk = resp.raw.read1(1 << 16, decode_content=True)
                    if not chunk:
                        break
                    fh.write(chunk)
                    digest.update(chunk)
                    if bar is not None:
                        bar.update(len(chunk))
        finally:
            if bar is not None:
                bar.close()
    if time.monotonic() - start > limit:
        raise _TooSlow()
    return digest.hexdigest()


def _copy(source: str, tmp: Path) -> str:
    """Copy a local mirror's file into ``tmp``; its sha256."""
    digest = hashlib.sha256()
    if not Path(source).is_file():
        raise RefbenchError("the mirror folder has no such file; nothing was kept",
                            code=E_DOWNLOAD, path=source)
    with Path(source).open("rb") as src, tmp.open("wb") as fh:
        for block in iter(lambda: src.read(1 << 20), b""):
            fh.write(block)
            digest.update(block)
    return digest.hexdigest()


def _download(url: str, rel: str, sha: str, root: Path, *, size: int, retries: int,
              progress: bool, rate: float) -> Path:

    target = root / rel
    made = _missing_parents(target, root)
    limit = deadline(size, rate)
    for attempt in range(retries + 1):
        tmp = partial_path(target)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            got = _copy(url, tmp) if _local(url) else _stream(url, tmp, size, limit, progress)
            if got != sha:
                raise RefbenchError(f"sha256 differs from the pinned {sha[:12]}...: the file is "
                                    "corrupt, truncated or not the release; it was not kept",
                                    code=E_DOWNLOAD, path=url)
            os.replace(tmp, target)
            return target
        except BaseException as exc:
            tmp.unlink(missing_ok=True)
            error = _explain(exc, url, rel, size, rate, limit, root)
            if error is None:  # Ctrl-C, SIGTERM: nothing was kept
                _remove_empty(made)
                raise
            retry = _broke(exc)
            if attempt < retries and (retry or "sha256 differs" in error.message):
                continue
            _remove_empty(made)
            raise error from None
    raise AssertionError("unreachable")


def _broke(exc: BaseException) -> bool:
    """A connection that broke or timed out mid-way (worth a retry)."""
    import requests
    import urllib3

    if isinstance(exc, requests.exceptions.HTTPError | requests.exceptions.ConnectionError):
        return isinstance(exc, requests.exceptions.ChunkedEncodingError)
    return isinstance(exc, requests.exceptions.RequestException | urllib3.exceptions.HTTPError
                      | TimeoutError)


def _explain(exc: BaseException, url: str, rel: str, size: int, rate: float, limit: float,
             root: Path) -> RefbenchError | None:
    """The one error a failed download is (None: an interruption, raised as it is)."""
    import requests

    if isinstance(exc, RefbenchError):
        return exc
    if isinstance(exc, _TooSlow):
        return RefbenchError(
            f"{rel} did not arrive within {limit:.0f} s, its total deadline ({CONNECT_TIMEOUT:g}"
            f" + {READ_TIMEOUT:g} s plus {size:,} bytes at the minimum rate of {rate:,.0f} "
            f"bytes/s); nothing was kept. A slow but working source: lower the rate with "
            f"--min-rate or ${MIN_RATE_ENV}", code=E_DOWNLOAD, path=url)
    if isinstance(exc, requests.exceptions.HTTPError):
        status = exc.response.status_code if exc.response is not None else "error"
        return RefbenchError(f"download failed (HTTP {status}); nothing was kept",
                             code=E_DOWNLOAD, path=url)
    if isinstance(exc, requests.exceptions.ConnectionError) and not isinstance(
            exc, requests.exceptions.ChunkedEncodingError):
        host = urllib.parse.urlsplit(url).hostname or url
        text = str(exc)
        why = ("the name does not resolve" if "resolve" in text or "Name or service" in text
               else "the connection was refused" if "refused" in text.lower()
               else "no connection")
        return RefbenchError(f"cannot reach {host} to fetch {rel} ({why}: offline?); nothing "
                             "was kept. Without the network: --mirror URL (a copy of the "
                             f"releases you can reach), or set REFBENCH_DATA_DIR to a folder "
                             "that already holds the release", code=E_DOWNLOAD, path=url)
    if _broke(exc):
        detail = str(exc).splitlines()[0][:160] if str(exc) else ""
        return RefbenchError(f"download failed ({type(exc).__name__}: {detail}): the "
                             "connection broke or timed out; nothing was kept",
                             code=E_DOWNLOAD, path=url)
    if isinstance(exc, OSError):  # (after _broke: a socket timeout is an OSError too)
        return RefbenchError(f"cannot write the data folder ({exc.strerror or exc})",
                             code=E_DOWNLOAD, path=root / rel)
    return None


def _missing_parents(path: Path, root: Path) -> list[Path]:
    """The folders between ``root`` and ``path`` that do not exist yet (deepest first)."""
    made = []
    for parent in path.parents:
        if parent.exists():
            break
        made.append(parent)
        if parent == root:
            break
    return made


def _remove_empty(folders: list[Path]) -> None:
    """Remove the folders a failed download created, if they stayed empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def remove_stale(release: Release, root: Path, mirror: str | None = None) -> list[Path]:
    """Remove the temporary files a killed ``data get`` left beside this release's files."""
    removed = []
    for entry in release.files:
        for rel in {entry.file, entry.mirror}:
            tmp = partial_path(root / rel)
            if tmp.is_file():
                tmp.unlink()
                removed.append(tmp)
    return removed


def get(release: Release, root: Path, *, mirror: str | None = None, retries: int = 2,
        progress: bool = True, say: Callable[[str], None] | None = None,
        rate: float | None = None) -> list[Fetched]:
    """Fetch every file of ``release`` into ``root`` that is not there yet. The first file that
    fails stops the fetch with one error; the files fetched before it stay (each is whole and
    checked), so running the command again fetches only what is missing. ``rate``: the
    minimum rate in bytes per second (:func:`min_rate`)."""
    speed = min_rate(rate)
    _refuse_files_in_the_way(release, root)
    with data_lock(root, say=say):
        return _get(release, root, mirror=mirror, retries=retries, progress=progress, say=say,
                    speed=speed)


def _refuse_files_in_the_way(release: Release, root: Path) -> None:
    """A file where the data folder or one of the release's folders must be is one error
    naming it, before anything is fetched."""
    for entry in release.files:
        for parent in reversed((root / entry.file).parents):
            if parent.exists() and not parent.is_dir():
                raise RefbenchError(f"is a file where refbench data get needs a folder (for "
                                    f"{entry.file}); move it away or choose another --dir",
                                    path=parent)


@contextmanager
def data_lock(root: Path, *, say: Callable[[str], None] | None = None,
              wait: float | None = None) -> Iterator[None]:
    """Hold the data folder's lock (an flock on the folder itself, so nothing is left in it),
    waiting, bounded, for another ``data get`` holding it."""
    import fcntl

    made = not root.exists()  # a folder made here is removed again if nothing came into it
    try:
        root.mkdir(parents=True, exist_ok=True)
        fd = os.open(root, os.O_RDONLY)
    except OSError as exc:
        raise RefbenchError(f"cannot write the data folder ({exc.strerror or exc})",
                            code=E_DOWNLOAD, path=root) from None
    limit = LOCK_WAIT if wait is None else wait
    try:
        start, told = time.monotonic(), False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() - start > limit:
                    raise RefbenchError(f"another refbench data get has been writing this "
                                        f"folder for over {limit:.0f} s; try again when it "
                                        "has finished", code=E_DOWNLOAD, path=root) from None
                if not told and say is not None:
                    say(f"waiting for another refbench data get writing {root}")
                    told = True
                time.sleep(0.2)
        yield
    finally:
        os.close(fd)  # closing releases the lock
        if made:
            with contextlib.suppress(OSError):  # only an empty folder: nothing left behind
                root.rmdir()


def _get(release: Release, root: Path, *, mirror: str | None, retries: int, progress: bool,
         say: Callable[[str], None] | None, speed: float) -> list[Fetched]:
    for tmp in remove_stale(release, root, mirror):
        if say is not None:
            say(f"removed {tmp}: an unfinished download of an earlier run (killed?)")
    done = []
    for entry in release.files:
        have = verified(root, entry)
        if have is not None:
            done.append(Fetched(entry, "kept", have, None))
            continue
        source = _source(entry, mirror)
        if source is None:
            if say is not None:
                say(f"skipped {entry.file}: {entry.note}")
            done.append(Fetched(entry, "skipped", None, None))
            continue
        url, rel, sha = source
        size = entry.mirror_size if mirror else entry.size
        path = _download(url, rel, sha, root, size=size, retries=retries,
                         progress=progress and size >= PROGRESS_BYTES, rate=speed)
        if say is not None:
            say(f"fetched {rel} ({size:,} bytes, sha256 checked)")
        done.append(Fetched(entry, "fetched", path, url))
    return done
