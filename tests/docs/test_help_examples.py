"""Every example of every ``--help`` runs as written, in order.

The order: the root group's examples (``refbench --help``: the quick start) first, then every
command in the order ``refbench --help`` lists them, depth first (a group's own examples, then
each of its commands'). An example may use what any example before it made; one that a help
shows again (a group repeating one of its commands') runs once, where it first appears.

They run in process (Click's runner, as the console entry point runs them: one error line and
exit code 2 for bad input) in a fresh folder beside ``shared``, a link to ``../shared``, in the
folder this test shares with the doc-command test (tests/docs/conftest.py), so
``../shared/data/...`` resolves as it does beside a checkout; HOME, the results store
(``REFBENCH_STORE``) and the data folder (``REFBENCH_DATA_DIR``) are in that folder too, so
an example writes nowhere else (the test checks that ``../shared/data`` is unchanged). The data
folder holds a link to each folder of ``../shared/data`` (laid out as ``refbench data get``
fills it): that stands in for the network, so ``data get NAME`` checks and keeps the files and
``--data NAME`` resolves. A comment that does not start with ``needs:`` is a note for the
reader (often which earlier example made a file); the example runs. A
shell's glob and ``~`` expansion are done as a shell does them. An example that says
``# needs: WHAT`` (a browser, the network, a GPU, a model trained for hours) is not run: the
test lists them. The first example that does not exit 0 fails the test, named with its
output.

Without ``../shared`` only the quick start (the root group's examples, which make their own
data) runs; the rest is one skip, since later examples use files that examples reading
``../shared`` made.
"""

from __future__ import annotations

import glob
import os
import shlex
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from refbench.core.help_text import Example, read_examples
from tests.conftest import SHARED
from tests.docs.conftest import Prepared
from tests.docs.help_tree import command_paths, help_text


@dataclass(frozen=True)
class Shown:
    """An example and the command whose help shows it."""

    where: tuple[str, ...]
    example: Example

    def __str__(self) -> str:
        return f"`{' '.join(('refbench', *self.where, '--help'))}`: {self.example.text}"


def shown_examples() -> list[tuple[tuple[str, ...], list[Example]]]:
    """Each command's path and its examples, in the order they run."""
    return [(path, read_examples(help_text(path))) for path, _ in command_paths()]


def run_order(groups: list[tuple[tuple[str, ...], list[Example]]]) -> list[Shown]:
    seen: set[str] = set()
    order = []
    for path, found in groups:
        for example in found:
            if example.text not in seen:
                seen.add(example.text)
                order.append(Shown(path, example))
    return order


def without_shared(order: list[Shown]) -> list[Shown]:
    """The examples that run without ../shared: the quick start (``refbench --help``)."""
    assert not any("../shared" in s.example.text for s in order if not s.where)
    return [s for s in order if not s.where]


def shell_words(args: tuple[str, ...], home: Path) -> list[str]:
    """The arguments after a shell's ``~`` and glob expansion (a pattern that matches nothing
    stays as written, as in bash)."""
    out: list[str] = []
    for arg in args:
        if arg == "~" or arg.startswith("~/"):
            arg = str(home) + arg[1:]
        matches = sorted(glob.glob(arg)) if any(c in arg for c in "*?[") else []
        out.extend(matches or [arg])
    return out


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    if not folder.is_dir():
        return {}
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*") if p.is_file()}


@pytest.fixture()
def workdir(prepared_folder: Prepared, shared_embeddings: Any,
            monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh folder beside ``shared`` (../shared) in the prepared folder
    (tests/docs/conftest.py), with HOME and the store beside it and the prepared data folder,
    as the current folder."""
    work, home = prepared_folder.fresh("help-work"), prepared_folder.fresh("help-home")
    monkeypatch.chdir(work)
    for name, value in {"HOME": home, "XDG_DATA_HOME": home / ".local" / "share",
                        "REFBENCH_STORE": prepared_folder.root / "help-store" / "results.sqlite",
                        "REFBENCH_DATA_DIR": prepared_folder.data,
                        "HF_HUB_OFFLINE": "1"}.items():
        monkeypatch.setenv(name, str(value))
    yield work


def run_example(shown: Shown, home: Path) -> tuple[int, str]:
    """Run one example as the console entry point would; its exit code and output."""
    from refbench.cli import app
    from refbench.core.commands import run_guarded

    args = shell_words(shown.example.args, home)
    with CliRunner().isolation(env=dict(shown.example.env)) as (_, _, output):
        code = run_guarded(app, args)
        sys.stdout.flush()
        sys.stderr.flush()
        return code, output.getvalue().decode("utf-8", "replace")


def run_in_order(order: list[Shown], home: Path) -> list[Shown]:
    """Run every example that needs nothing the test lacks, failing at the first that does
    not exit 0; the examples left out (``# needs:``)."""
    left_out, times = [], []
    for i, shown in enumerate(order, 1):
        if shown.example.needs is not None:
            left_out.append(shown)
            continue
        start = time.perf_counter()
        code, output = run_example(shown, home)
        times.append((time.perf_counter() - start, str(shown)))
        if code != 0:
            pytest.fail(f"example {i} of {len(order)} exits {code}: {shown}\n"
                        f"$ {shown.example.text}\n{output[-6000:]}", pytrace=False)
    print(f"\n{len(times)} examples run, {len(left_out)} left out (# needs:); slowest:")
    for seconds, text in sorted(times, reverse=True)[:15]:
        print(f"  {seconds:6.1f} s  {text}")
    for shown in left_out:
        print(f"  not run: {shown}  # needs: {shown.example.needs}")
    return left_out


def test_every_command_shows_examples() -> None:
    for path, found in shown_examples():
        assert found, f"`refbench {' '.join(path)} --help` shows no examples"


def test_every_help_example_runs_in_order(workdir: Path) -> None:
    order = run_order(shown_examples())
    home = Path(os.environ["HOME"])
    if not SHARED.is_dir():
        run_in_order(without_shared(order), home)
        pytest.skip(f"{SHARED} not present: {len(order) - len(without_shared(order))} "
                    "examples after the quick start not run")
    before = snapshot(SHARED / "data")
    left_out = run_in_order(order, home)
    assert snapshot(SHARED / "data") == before, "an example wrote into ../shared/data"
    assert all(shown.example.needs for shown in left_out)


def test_examples_are_read_as_a_shell_reads_them() -> None:
    from refbench.core.help_text import examples

    text = examples(
        'refbench tne chunk "The roof of the house in the town fell."  # one text',
        "REFBENCH_DATA_DIR=../shared/data refbench run --model first --data winobias "
        "--out runs/wb",
        "refbench serve kitmus-suite --runs runs --port 8080 --no-warm --store a/very/long/"
        "path/to/a/store.sqlite  # needs: a browser; it serves until Ctrl-C, and this "
        "comment is longer than one line")
    found = read_examples(text)
    assert [e.args[:2] for e in found] == [("tne", "chunk"), ("run", "--model"),
                                          ("serve", "kitmus-suite")]
    assert found[0].args[2] == "The roof of the house in the town fell."
    assert found[0].note == "one text" and found[0].needs is None
    assert found[1].env == {"REFBENCH_DATA_DIR": "../shared/data"}
    assert found[2].needs == ("a browser; it serves until Ctrl-C, and this comment is longer "
                              "than one line")
    assert found[2].args[-1] == "a/very/long/path/to/a/store.sqlite"
    assert all(len(line) <= 100 for line in text.splitlines())
    for line in text.splitlines()[2:]:  # what a shell makes of the help's lines
        if not line.strip().startswith("#"):
            shlex.split(line.removesuffix("\\"), comments=True)
    with pytest.raises(ValueError, match="not a refbench command"):
        read_examples(examples("refbnech ls"))
