"""Every command block of README.md and the guides (docs/guide/*.md) runs as written, in order,
the way a newcomer types them on a fresh clone beside ``../shared``.

A command block is a fenced ``bash``/``sh`` block (plain fences are file listings). A block
right after a line ``<!-- doc-test: needs WHAT -->`` is not run: the page says in words what it
needs (a server that runs until stopped, a long training, a GPU), and
:func:`test_a_block_that_is_not_run_says_what_it_needs` is skipped with that reason, so the
skips are listed by pytest. Every other block runs, page after page in reading order (README,
quick start, commands, pitfalls) in one folder, and the test fails on the first command that
does not exit 0, naming the page, the line and the command's output.

The folder: ``TMP/docs-work`` (the current directory) beside ``TMP/shared``, a link to
``../shared``, so ``../shared/data/...`` means what it means beside a clone; ``TMP`` is the
folder this test shares with the help-example test (tests/docs/conftest.py).
``REFBENCH_DATA_DIR`` is ``../shared/data``: the releases as ``refbench data get`` leaves them
(this machine has no network to their sources; ``data get`` keeps files already there, checked).
The store is the folder's own ``.refbench/results.sqlite``, as on a fresh clone.

``refbench ...`` lines run in this process through Click's runner (the same app as the
console script, and much faster than a new interpreter each); a line with shell syntax (a pipe,
a redirection, a variable) and any other command run in bash.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.conftest import ROOT, SHARED
from tests.docs.conftest import Prepared

PAGES = [ROOT / "README.md", *(ROOT / "docs" / "guide" / name for name in
                               ("quickstart.md", "commands.md", "pitfalls.md"))]
MARK = re.compile(r"<!--\s*doc-test:\s*needs\s+(.+?)\s*-->")
FENCE = re.compile(r"^```(\w*)\s*$")
SHELL = re.compile(r"[|<>;$`*]|\(")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    text: str
    #: What the block needs, from its doc-test mark; None: it runs.
    needs: str | None

    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The command blocks of ``page``, in order."""
    out: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        if fence.group(1) in ("bash", "sh", "shell"):
            before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            mark = MARK.search(before)
            out.append(Block(page, i + 2, "\n".join(lines[i + 1:end]),
                             mark.group(1) if mark else None))
        i = end + 1
    return out


def commands(block: Block) -> list[tuple[int, str]]:
    """(line number, command) of each command of ``block``: comments dropped, ``a && b`` two
    commands, continuation lines joined; a line with shell syntax stays one command for bash."""
    out: list[tuple[int, str]] = []
    pending, start = "", block.line
    for n, raw in enumerate(block.text.splitlines(), start=block.line):
        if not pending:
            start = n
        line = (pending + " " + raw.strip()).strip() if pending else raw.rstrip()
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        pending = ""
        words = shlex.split(line, comments=True)
        if not words:
            continue
        if SHELL.search(shlex.join(words).replace("'", "").replace('"', "")):
            out.append((start, line))
            continue
        part: list[str] = []
        for word in [*words, "&&"]:
            if word == "&&":
                out.append((start, shlex.join(part)))
                part = []
            else:
                part.append(word)
    return out


ALL = [b for page in PAGES for b in blocks(page)]
RUN = [b for b in ALL if b.needs is None]
MARKED = [b for b in ALL if b.needs is not None]


def run_line(command: str, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run one command in ``cwd``: (exit status, output)."""
    words = shlex.split(command)
    if words and words[0] == "refbench" and not SHELL.search(
            command.replace("'", "").replace('"', "")):
        from refbench.cli import app

        result = CliRunner().invoke(app, words[1:], env=env, catch_exceptions=True)
        output = result.output
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            output += f"\n{type(result.exception).__name__}: {result.exception}"
        return result.exit_code, output
    bin_dir = str(Path(sys.executable).parent)
    full = dict(os.environ, **env, PATH=f"{bin_dir}:{os.environ.get('PATH', '')}",
                PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=900, check=False)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.skipif(not (SHARED / "data").is_dir(), reason=f"{SHARED / 'data'} not present")
def test_every_command_block_runs_as_written(prepared_folder: Prepared, shared_embeddings: Any,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    work = prepared_folder.fresh("docs-work")
    env = {"REFBENCH_DATA_DIR": "../shared/data", "HF_HUB_OFFLINE": "1"}
    monkeypatch.delenv("REFBENCH_STORE", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(work)
    assert RUN, "no command block found"
    for block in RUN:
        for line, command in commands(block):
            status, output = run_line(command, work, env)
            assert status == 0, (f"{block.page.relative_to(ROOT)}:{line}: `{command}` exited "
                                 f"{status}:\n{output[-3000:]}")


@pytest.mark.parametrize("block", MARKED, ids=[b.where() for b in MARKED])
def test_a_block_that_is_not_run_says_what_it_needs(block: Block) -> None:
    assert len(block.needs or "") > 10, f"{block.where()}: say what the block needs"
    pytest.skip(f"{block.where()} needs {block.needs}")


def test_blocks_and_marks_are_read() -> None:
    """The reader finds blocks, marks and commands (a page with none would pass unread)."""
    page = ROOT / "README.md"
    found = blocks(page)
    assert found and any(b.needs for b in found) and any(b.needs is None for b in found)
    block = Block(page, 1, "refbench ls   # the registry\nrefbench a && refbench b 'x # y'\n"
                  "# a comment\nrefbench c \\\n  --d", None)
    assert commands(block) == [(1, "refbench ls"), (2, "refbench a"),
                               (2, "refbench b 'x # y'"), (4, "refbench c --d")]
    piped = Block(page, 1, "refbench ls --json | head -1  # the first line", None)
    assert commands(piped) == [(1, "refbench ls --json | head -1  # the first line")]
