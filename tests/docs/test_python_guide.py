"""Every ``python`` block of ``docs/guide/python.md`` runs, in order, as one script in a fresh
interpreter, the way a newcomer pastes them into a notebook beside ``../shared`` (the releases
in ``../shared/data`` as ``refbench data get`` leaves them). A failing block is named by its
line in the page."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED

PAGE = ROOT / "docs" / "guide" / "python.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
MARK = "### refbench-doc-block line "


def python_blocks(page: Path) -> list[tuple[int, str]]:
    """(line of the fence, code) of every ``python`` block of ``page``."""
    text = page.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in BLOCK.finditer(text)]


def test_the_guide_has_its_blocks() -> None:
    found = python_blocks(PAGE)
    assert len(found) >= 8 and all(code.strip() for _, code in found)
    assert any("refbench.compare" in code for _, code in found)


@pytest.mark.skipif(not (SHARED / "data").is_dir(), reason=f"{SHARED / 'data'} not present")
def test_every_python_block_of_the_guide_runs(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "shared").symlink_to(SHARED.resolve())
    script = "".join(f"print({MARK + str(line)!r}, flush=True)\n{code}\n"
                     for line, code in python_blocks(PAGE))
    (work / "guide.py").write_text(script, encoding="utf-8")
    env = dict(os.environ, REFBENCH_DATA_DIR="../shared/data", HF_HUB_OFFLINE="1",
               MPLBACKEND="Agg", PYTHONPATH=str(ROOT / "src"))
    env.pop("REFBENCH_STORE", None)
    done = subprocess.run([sys.executable, "guide.py"], cwd=work, env=env, capture_output=True,
                          text=True, timeout=900, check=False)
    reached = re.findall(rf"^{MARK}(\d+)$", done.stdout, re.M)
    where = f"docs/guide/python.md:{reached[-1] if reached else '?'}"
    assert done.returncode == 0, f"{where}: the block failed:\n{done.stderr[-3000:]}"
    assert (work / "kitmus-first.png").is_file()
