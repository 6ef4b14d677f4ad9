"""Rows of the bad-input table for issue 50, point 7 (``refbench serve``): the inputs it must
refuse before it serves anything, as one ``error E100`` line with exit code 2 and nothing made.

Before, ``--index-dir`` naming a file (or a folder under a file) was a ``FileExistsError`` /
``NotADirectoryError`` traceback, and a ``--runs`` folder that does not exist started the
server without a word (the sweep cannot run that row on an older refbench: it serves until
stopped). The defects that need a live server (a run whose predictions are garbage, Ctrl-C and
SIGKILL while indexing, an index with rows deleted) are tests:
:mod:`tests.web.test_serve_faults` and :mod:`tests.web.test_serve_signals`.
"""

from __future__ import annotations

from pathlib import Path

from tests.robustness.harness import Case

CAUSE = "serve start"
SERVE = ("serve", "{S}/gap.tsv", "--port", "0", "--store", "{T}/s.sqlite")


def _a_file(case_dir: Path, support: Path) -> None:
    (case_dir / "afile").write_text("not a folder\n")


def _first_runs(case_dir: Path, support: Path) -> None:
    (case_dir / "runs" / "first").mkdir(parents=True)


def silent_cases() -> list[Case]:
    return [
        Case(id="serve: --index-dir names a file", cause=CAUSE, make=_a_file,
             args=(*SERVE, "--index-dir", "{T}/afile"),
             fragment="is a file, expected a folder to keep the search index in"),
        Case(id="serve: --index-dir under a file", cause=CAUSE, make=_a_file,
             args=(*SERVE, "--index-dir", "{T}/afile/index"),
             fragment="cannot make the folder (Not a directory)"),
        Case(id="serve: a --runs folder that does not exist", cause=CAUSE, make=_first_runs,
             args=(*SERVE, "--runs", "runs/first", "runs/emb"),
             fragment="--runs: no such file or folder: runs/emb"),
    ]
