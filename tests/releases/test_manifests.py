"""The release manifests (``tasks/<name>/releases.json``): well-formed, every split pointing at
files of its release, and every pinned sha256 that of the reference copy in ../shared/data
(both forms where it keeps a file gzipped)."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path, PurePosixPath

import pytest

from refbench.core.errors import RefbenchError
from refbench.releases.cache import resolve
from refbench.releases.manifest import all_releases, parse_manifest
from tests.conftest import SHARED, needs_shared

DATA = SHARED / "data"
EXPECTED = {"kitmus", "kitmus-predictions", "gap", "knowref", "wsc273", "winogrande",
            "altentities", "tne", "winogender", "winobias"}


def test_every_benchmark_has_its_release() -> None:
    releases = all_releases()
    assert {r.name for r in releases} == EXPECTED
    for release in releases:
        assert release.licence and release.source and release.title
        for entry in release.files:
            if entry.url is not None:
                # a published file at a pinned commit, never a branch name
                assert entry.url.startswith("https://raw.githubusercontent.com/")
                commit = entry.url.split("/")[5]
                assert len(commit) == 40 and commit in release.source
            else:
                assert entry.note


def test_every_split_points_at_files_of_its_release(tmp_path: Path) -> None:
    for release in all_releases():
        wanted = {release.splits[s] for s in release.splits}
        for rel in wanted:
            path = f"{release.root}/{rel}"
            assert any(f.file == path or PurePosixPath(f.file).is_relative_to(path)
                       for f in release.files), (release.name, rel)
    # a data folder holding every file (sparse stand-ins of the pinned sizes): every split
    # resolves to a file or folder there
    for release in all_releases():
        for entry in release.files:
            (tmp_path / entry.file).parent.mkdir(parents=True, exist_ok=True)
            with (tmp_path / entry.file).open("wb") as fh:
                fh.truncate(entry.size)
    for release in all_releases():
        for split in [None, *release.splits]:
            ref = release.name if split is None else f"{release.name}:{split}"
            path = resolve(ref, tmp_path)
            assert path.is_relative_to(tmp_path / release.root) and path.exists(), ref
        assert resolve(release.name, tmp_path) == (
            tmp_path / release.root / release.splits[release.default] if release.default
            else tmp_path / release.root)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@needs_shared(DATA)
def test_pinned_checksums_are_the_reference_copy() -> None:
    checked = 0
    for release in all_releases():
        for entry in release.files:
            raw = (DATA / entry.mirror).read_bytes()
            assert (_sha(raw), len(raw)) == (entry.mirror_sha256, entry.mirror_size), entry.mirror
            published = gzip.decompress(raw) if entry.gzipped_on_mirror else raw
            assert (_sha(published), len(published)) == (entry.sha256, entry.size), entry.file
            checked += 1
    assert checked == 143  # every file of ../shared/data but its README


@needs_shared(DATA)
def test_resolving_against_the_reference_copy() -> None:
    """../shared/data is laid out as a data folder of the mirror's forms."""
    assert resolve("wsc273", DATA) == DATA / "winograd" / "wsc273.jsonl"
    assert resolve("tne:dev", DATA) == DATA / "tne" / "dev.jsonl.gz"
    assert resolve("altentities:books-test", DATA) == DATA / "altentities/books/test.json.gz"
    assert resolve("kitmus", DATA) == DATA / "kitmus-official" / "released"
    assert resolve("winobias:conll", DATA) == DATA / "winobias" / "conll_format"
    assert resolve("winobias:pro_stereotyped_type1.txt.dev", DATA) == (
        DATA / "winobias" / "pro_stereotyped_type1.txt.dev")


def _manifest(**changes: object) -> str:
    entry = {"file": "x/a.txt", "sha256": "0" * 64, "bytes": 1,
             "url": "https://raw.githubusercontent.com/o/r/" + "1" * 40 + "/a.txt"}
    entry.update(changes)
    return json.dumps({"format": "refbench.releases.v1", "releases": [{
        "name": "x", "task": "t", "title": "X", "licence": "MIT", "source": "o/r", "root": "x",
        "default": None, "splits": {}, "files": [entry]}]})


@pytest.mark.parametrize(("change", "message"), [
    ({"file": "../etc/passwd"}, "not a relative path inside"),
    ({"file": "y/a.txt"}, "outside the release folder"),
    ({"sha256": "abc"}, "is not a sha256"),
    ({"url": "http://example.org/a.txt"}, "https:// address or null"),
    ({"url": None}, "needs a note"),
    ({"mirror": "x/a.txt.gz"}, "mirror_sha256"),
])
def test_a_malformed_manifest_is_one_error(change: dict[str, object], message: str) -> None:
    assert parse_manifest(_manifest(), "m.json")[0].files[0].file == "x/a.txt"
    with pytest.raises(RefbenchError, match=message):
        parse_manifest(_manifest(**change), "m.json")
