"""The generator's validity checks cover every size and split selection (issue 50, point 4):
a repeated name is refused whatever is generated, and "splits disjoint" is said only when
there were splits to compare."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from refbench.tasks.kitmus.generate.resources import BUILTIN_DIR
from tests.conftest import OFFICIAL, needs_shared


def _cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    from refbench.cli import app
    from refbench.core.commands import run_guarded

    code = run_guarded(app, [str(a) for a in args])
    got = capsys.readouterr()
    return code, got.out, got.err


def _repeat_a_name(names: Path, *, header: bool) -> tuple[str, int]:
    lines = names.read_text(encoding="utf-8").splitlines()
    first = 1 if header else 0
    name = lines[first].split(",")[0] if header else lines[first]
    lines.insert(first + 5, lines[first])
    names.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return name, first + 6  # the repeat's line number (1-based)


@pytest.mark.parametrize("splits", ["test", "train,validation,test"])
def test_a_repeated_name_is_refused_for_any_selection(splits: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    res = tmp_path / "res"
    shutil.copytree(BUILTIN_DIR, res, ignore=shutil.ignore_patterns("*.md"))
    name, line = _repeat_a_name(res / "names.txt", header=False)
    code, _, err = _cli(capsys, "kitmus", "generate", "--resources", res, "--out",
                        tmp_path / "s", "--splits", splits, "--sizes", "test=40",
                        "--entities", "4", "--variants", "background-pretrain", "--formats",
                        "jsonl", "--quiet", "--no-probe")
    assert code == 2, err
    assert f"names.txt:{line}" in err and f"the name {name!r} occurs twice (also on line 1)" \
        in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "s").exists()


@needs_shared(OFFICIAL / "resources")
def test_the_official_layout_refuses_a_repeated_name_too(tmp_path: Path) -> None:
    from refbench.core.errors import ResourceError
    from refbench.tasks.kitmus.generate.resources import load_resources

    res = tmp_path / "res"
    shutil.copytree(OFFICIAL / "resources", res)
    name, line = _repeat_a_name(res / "names.csv", header=True)
    with pytest.raises(ResourceError, match=f"the name {name!r} occurs twice") as info:
        load_resources(res)
    assert info.value.line == line


def test_one_split_is_not_called_disjoint(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(capsys, "kitmus", "generate", "--out", tmp_path / "s", "--splits",
                          "test", "--sizes", "test=10", "--entities", "2", "--variants",
                          "background-pretrain", "--formats", "jsonl", "--quiet",
                          "--no-probe")
    assert code == 0, err
    assert "splits disjoint (names, occupations, locations, templates, noise): not checked" \
        in " ".join(out.split())
    stats = json.loads((tmp_path / "s" / "stats.json").read_text())
    assert stats["config"]["splits"] == ["test"]
    assert "Disjoint: not checked (one split generated)" in (
        tmp_path / "s" / "DATASHEET.md").read_text()
