"""``refbench data get``: download a release's files, check each one's sha256, keep only good ones.

Downloads go through pooch (a well-kept downloader built on requests): each file is streamed
to a temporary file in its target folder, its sha256 compared with the pinned one, and only
then moved into place; a wrong checksum, a truncated file or a connection dropped mid-body
leaves nothing behind. A file already there with the right checksum is not fetched again.

From a mirror (``--mirror URL``, laid out like the reference copy of the releases) each file
comes from ``URL/<its path in that copy>`` and is checked against that copy's sha256 (the
gzipped form where the copy keeps one). A file with no published URL can only come from a
mirror; without one it is skipped, saying so.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from refbench.core.errors import E_DOWNLOAD, RefbenchError
from refbench.releases.cache import verified
from refbench.releases.manifest import Release, ReleaseFile

CONNECT_TIMEOUT = 15.0  # seconds to connect; reads wait at most READ_TIMEOUT between bytes
READ_TIMEOUT = 60.0
PROGRESS_BYTES = 1_000_000  # a progress bar for files this large or larger


@dataclass(frozen=True)
class Fetched:
    """What ``get`` did with one file: ``kept`` (already there), ``fetched`` or ``skipped``."""

    entry: ReleaseFile
    action: str
    path: Path | None
    source: str | None


def _source(entry: ReleaseFile, mirror: str | None) -> tuple[str, str, str] | None:
    """(url, relative path it lands at, sha256) for this file, or None when not fetchable."""
    if mirror:
        return f"{mirror.rstrip('/')}/{entry.mirror}", entry.mirror, entry.mirror_sha256
    if entry.url is None:
        return None
    return entry.url, entry.file, entry.sha256


@contextmanager
def _quiet_pooch() -> Iterator[None]:
    """pooch logs every download at INFO; refbench prints its own lines."""
    import pooch

    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def _download(url: str, rel: str, sha: str, root: Path, *, retries: int, progress: bool) -> Path:
    import pooch
    import requests

    fetcher = pooch.create(path=root, base_url="", registry={rel: f"sha256:{sha}"},
                           urls={rel: url}, retry_if_failed=retries, allow_updates=True)
    downloader = pooch.HTTPDownloader(progressbar=progress,
                                      timeout=(CONNECT_TIMEOUT, READ_TIMEOUT))
    made = _missing_parents(root / rel, root)
    try:
        with _quiet_pooch():
            return Path(fetcher.fetch(rel, downloader=downloader))
    except ValueError as exc:
        _remove_empty(made)
        if "hash" in str(exc).lower():
            raise RefbenchError(f"sha256 differs from the pinned {sha[:12]}...: the file is "
                                "corrupt, truncated or not the release; it was not kept",
                                code=E_DOWNLOAD, path=url) from None
        raise RefbenchError(f"download failed ({exc}); nothing was kept", code=E_DOWNLOAD,
                            path=url) from None
    except requests.exceptions.HTTPError as exc:
        _remove_empty(made)
        status = exc.response.status_code if exc.response is not None else "error"
        raise RefbenchError(f"download failed (HTTP {status}); nothing was kept",
                            code=E_DOWNLOAD, path=url) from None
    except requests.exceptions.RequestException as exc:
        _remove_empty(made)
        reason = type(exc).__name__
        detail = str(exc).splitlines()[0][:160] if str(exc) else ""
        raise RefbenchError(f"download failed ({reason}: {detail}): the connection broke or "
                            "timed out; nothing was kept", code=E_DOWNLOAD, path=url) from None
    except OSError as exc:
        _remove_empty(made)
        raise RefbenchError(f"cannot write the data folder ({exc.strerror or exc})",
                            code=E_DOWNLOAD, path=root / rel) from None
    except BaseException:  # Ctrl-C, SIGTERM: pooch has removed its temporary file
        _remove_empty(made)
        raise


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


def get(release: Release, root: Path, *, mirror: str | None = None, retries: int = 2,
        progress: bool = True, say: Callable[[str], None] | None = None) -> list[Fetched]:
    """Fetch every file of ``release`` into ``root`` that is not there yet. The first file that
    fails stops the fetch with one error; the files fetched before it stay (each is whole and
    checked), so running the command again fetches only what is missing."""
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
        path = _download(url, rel, sha, root, retries=retries,
                         progress=progress and size >= PROGRESS_BYTES)
        if say is not None:
            say(f"fetched {rel} ({size:,} bytes, sha256 checked)")
        done.append(Fetched(entry, "fetched", path, url))
    return done
