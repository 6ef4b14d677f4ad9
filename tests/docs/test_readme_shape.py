"""The README reads in two minutes: the quick start near the top, the whole page short; the
changelog holds one entry per release, the newest being the package's version."""

from __future__ import annotations

import re

from refbench.core.version import __version__
from tests.conftest import ROOT


def test_the_quick_start_comes_first_and_the_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines, 1) if line.startswith("## Quick start"))
    assert start <= 25, f"the quick start starts at line {start}"
    assert len(lines) < 110, f"README.md has {len(lines)} lines"
    block = lines[start:start + 12]
    commands = [line.split("#")[0].strip() for line in block
                if line.startswith("make ")]
    assert commands == ["make run", "make test"], commands


def test_the_changelog_has_one_entry_per_release_newest_first() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", text, re.M)
    assert releases, "no release entries"
    assert releases[0] == __version__, (releases[0], __version__)
    assert len(set(releases)) == len(releases)
    as_tuples = [tuple(int(x) for x in r.split(".")) for r in releases]
    assert as_tuples == sorted(as_tuples, reverse=True)
    assert "[Unreleased]" not in text.split(f"## [{releases[0]}]")[1]
