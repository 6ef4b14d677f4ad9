"""What ``refbench data`` does, as library functions: fetch the benchmarks' published releases
by name (each file checked by its sha256), list them, and the path a ``NAME[:SPLIT]``
reference stands for. Each returns what it found; none prints (``get_releases`` hands its
progress lines to ``say``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def get_releases(names: Sequence[str], *, folder: Path | None = None, mirror: str | None = None,
                 retries: int = 2, min_rate: float | None = None, progress: bool = False,
                 say: Callable[[str], None] = lambda line: None) -> dict[str, Any]:
    """Fetch the releases ``names`` (``all``: every one) into the data folder (``folder``,
    else the default one); files already there are checked, not fetched again. Returns
    ``{"data_dir", "releases": [{name, licence, source, folder, state, fetched, kept,
    skipped}]}``; ``say`` gets each release's lines as it goes (title, licence, source, the
    files, the outcome)."""
    from refbench.releases.cache import data_dir, status
    from refbench.releases.fetch import get, mirror_source
    from refbench.releases.fetch import min_rate as check_rate
    from refbench.releases.manifest import all_releases, get_release

    if mirror is not None:
        mirror = mirror_source(mirror)
    check_rate(min_rate)  # a bad rate is a usage error before anything is fetched
    releases = list(all_releases()) if "all" in names else [get_release(n) for n in names]
    root = data_dir(folder)
    report: list[dict[str, Any]] = []
    for release in releases:
        say(f"{release.name}: {release.title}")
        say(f"  licence: {release.licence}")
        say(f"  source: {release.source}" + (f" (via mirror {mirror})" if mirror else ""))
        done = get(release, root, mirror=mirror, retries=retries, rate=min_rate,
                   progress=progress, say=lambda line: say(f"  {line}"))
        state = status(release, root)
        counts = {a: sum(d.action == a for d in done) for a in ("fetched", "kept", "skipped")}
        say(f"  {counts['fetched']} fetched, {counts['kept']} already there, "
            f"{counts['skipped']} skipped: {state.state} in {root / release.root}")
        report.append({"name": release.name, "licence": release.licence,
                       "source": release.source, "folder": str(root / release.root),
                       "state": state.state, **counts})
    return {"data_dir": str(root), "releases": report}


def list_releases(*, folder: Path | None = None, verify: bool = False) -> dict[str, Any]:
    """Every known release and what of it is in the data folder (``verify``: every file's
    sha256 checked, else its size): ``{"data_dir", "verified", "releases": [...]}``, one row
    per release with its state, files, size, splits, licence, source and what cannot be
    fetched from a public URL."""
    from refbench.releases.cache import data_dir, status
    from refbench.releases.manifest import all_releases

    root = data_dir(folder)
    rows: list[dict[str, Any]] = []
    for release in all_releases():
        state = status(release, root, verify=verify)
        rows.append({
            "name": release.name, "task": release.task, "title": release.title,
            "state": state.state, "files": len(release.files), "have": len(state.have),
            "bytes": release.size, "folder": str(root / release.root),
            "default": release.default, "splits": sorted(release.splits),
            "licence": release.licence, "source": release.source,
            "mirror_only": [{"file": f.file, "note": f.note} for f in release.mirror_only],
            "not_included": release.not_included or None})
    return {"data_dir": str(root), "verified": verify, "releases": rows}


def release_path(reference: str, *, folder: Path | None = None) -> Path:
    """The file or folder ``NAME[:SPLIT]`` stands for (what ``--data NAME`` reads)."""
    from refbench.releases.cache import data_dir, resolve

    return resolve(reference, data_dir(folder))
