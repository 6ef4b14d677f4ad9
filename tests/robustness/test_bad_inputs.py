"""Every bad input is one clear line, exit code 2, no traceback and nothing left behind (the
table is in :mod:`tests.robustness.cases`; ``scripts/bad_input_sweep.py`` counts it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.robustness.cases import all_cases
from tests.robustness.harness import (
    Case,
    expand,
    invoke,
    permissions_enforced,
    problems,
    snapshot,
)
from tests.robustness.support import make_support

PERMISSIONS = permissions_enforced()


def _param(case: Case) -> object:
    marks = []
    if case.needs_non_root:
        marks.append(pytest.mark.skipif(not PERMISSIONS,
                                        reason="file permissions do not bind this user (root)"))
    if case.xfail:
        marks.append(pytest.mark.xfail(strict=True, reason=case.xfail))
    return pytest.param(case, id=case.id, marks=marks)


@pytest.fixture(scope="module")
def support(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_support(tmp_path_factory.mktemp("support"))


@pytest.mark.parametrize("case", [_param(c) for c in all_cases()])
def test_bad_input(case: Case, support: Path, tmp_path: Path) -> None:
    case_dir = tmp_path / "case"
    case_dir.mkdir()
    if case.make is not None:
        case.make(case_dir, support)
    before = snapshot(case_dir)
    outcome = invoke(expand(case.args, support, case_dir), cwd=case_dir,
                     env={"REFBENCH_STORE": str(tmp_path / "store.sqlite"),
                          "HF_HUB_OFFLINE": "1"},
                     path=case.path.replace("{T}", str(case_dir)))
    after = snapshot(case_dir)
    for p in case_dir.rglob("*"):  # let pytest remove what a case made read-only
        if p.is_dir():
            os.chmod(p, 0o755)
    assert not problems(case, outcome, before, after), (outcome.stderr[-2000:],
                                                        outcome.traceback)
