"""A generated suite's DATASHEET.md says where it came from, under which licence, how to cite and
use it, and how to regenerate it (and that command works); generate refuses a suite that breaks
its own split guarantee and skips one that is already current."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from refbench.core.errors import OutputError
from refbench.tasks.kitmus.generate.resources import BUILTIN_DIR, load_resources
from refbench.tasks.kitmus.generate.suite import generate_suite, make_config
from tests.conftest import OFFICIAL, needs_shared, run_cli
from tests.tasks.kitmus.generate.test_generate import files_of

TINY = ["--variants", "background-both", "--entities", "2", "--sizes", "train=2,validation=1,"
        "test=2", "--seed", "5", "--quiet"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ds") / "suite"
    r = run_cli("kitmus", "generate", "--out", str(out), *TINY)
    assert r.returncode == 0, r.stderr
    return out


def test_datasheet_sections(tiny: Path) -> None:
    sheet = (tiny / "DATASHEET.md").read_text()
    stats = json.loads((tiny / "stats.json").read_text())
    for heading in ("## Intended use and limitations", "## Provenance", "## Licence",
                    "## Citation"):
        assert heading in sheet
    assert "@inproceedings{arodi-etal-2023-kitmus" in sheet and "doi = \"10.18653/v1/2023." \
        "acl-long.841\"" in sheet
    assert "@software{refbench" in sheet and "version = {0.1.0}" in sheet
    assert "- refbench version: 0.1.0" in sheet
    commit = stats["provenance"]["git_commit"]
    assert (f"- git commit: `{commit}`" in sheet) if commit else \
        "- git commit: not run from a git checkout" in sheet
    assert f"- resource folder: `{BUILTIN_DIR.resolve()}` (builtin layout)" in sheet
    assert f"`{stats['resources']['fingerprint']}`" in sheet
    assert "MIT" in stats["resources"]["licence"] and "census" in sheet
    assert stats["split_overlap_ok"] is True


def test_regenerate_command_works(tiny: Path, tmp_path: Path) -> None:
    command = json.loads((tiny / "stats.json").read_text())["command"]
    assert f"```\n{command}\n```" in (tiny / "DATASHEET.md").read_text()
    args = shlex.split(command)
    assert args[:3] == ["refbench", "kitmus", "generate"]
    again = tmp_path / "again"
    args = [str(again) if a == "DIR" else a for a in args[1:]]
    r = run_cli(*args, "--quiet")
    assert r.returncode == 0, r.stderr
    assert files_of(again) == files_of(tiny)


def test_skip_if_current(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    assert run_cli("kitmus", "generate", "--out", str(out), *TINY).returncode == 0
    marker = out / "background-both" / "subtask_2_ents" / "test.jsonl"
    before = marker.stat().st_mtime_ns
    same = run_cli("kitmus", "generate", "--out", str(out), *TINY, "--skip-if-current",
                   "--overwrite")
    assert same.returncode == 0 and "is up to date" in same.stdout
    assert marker.stat().st_mtime_ns == before
    changed = run_cli("kitmus", "generate", "--out", str(out), *TINY[:-3], "--seed", "6",
                      "--quiet", "--skip-if-current", "--overwrite")
    assert changed.returncode == 0 and "out of date (its seed differs)" in changed.stderr
    assert json.loads((out / "stats.json").read_text())["seed"] == 6
    marker.unlink()
    missing = run_cli("kitmus", "generate", "--out", str(out), *TINY[:-3], "--seed", "6",
                      "--quiet", "--skip-if-current", "--overwrite")
    assert "background-both/subtask_2_ents/test.jsonl is missing" in missing.stderr
    assert marker.is_file()


def test_a_leaking_suite_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pools whose splits share names break the split guarantee: nothing is written."""
    from dataclasses import replace

    from refbench.tasks.kitmus.generate import suite as suite_module
    from refbench.tasks.kitmus.generate.instances import Pools, build_pools

    def leaky(res, *, seed):  # type: ignore[no-untyped-def]
        pools = build_pools(res, seed=seed)
        two = pools.splits["train"].names[:2]  # every split draws the same two names
        return Pools({k: replace(v, names=two) for k, v in pools.splits.items()}, pools.shared)

    monkeypatch.setattr(suite_module, "build_pools", leaky)
    out = tmp_path / "leaky"
    cfg = make_config(variants=["background-both"], entities=[2],
                      sizes={"train": 2, "validation": 1, "test": 2}, seed=1)
    with pytest.raises(OutputError) as info:
        generate_suite(load_resources(), out, cfg, progress=False)
    assert "failed its own check" in info.value.message and '"names": ' in info.value.message
    assert not out.exists() and not list(tmp_path.glob(".*partial"))


@needs_shared(OFFICIAL / "resources")
def test_official_resources_datasheet(tmp_path: Path) -> None:
    out = tmp_path / "official"
    r = run_cli("kitmus", "generate", "--out", str(out), "--resources",
                str(OFFICIAL / "resources"), *TINY)
    assert r.returncode == 0, r.stderr
    stats = json.loads((out / "stats.json").read_text())
    sheet = (out / "DATASHEET.md").read_text()
    assert "CC BY-SA 3.0" in stats["resources"]["licence"] and "(official layout)" in sheet
    resolved = str((OFFICIAL / "resources").resolve())
    assert f"--resources {shlex.quote(resolved)}" in stats["command"]
    assert stats["split_overlap_ok"] is True  # shared pools are declared, not leaks
    assert "Disjoint: yes (except the pools too small to split" in sheet
