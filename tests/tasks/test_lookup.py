"""One answer to "which task takes this folder whole" (tasks/lookup.py), as each caller meets
it: the runner (a named task, or the folder's own), the lm-eval export/import (the folder's
subtasks) and the web app (is this folder one dataset?)."""

from __future__ import annotations

from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.tasks.lookup import folder_task, folder_task_of, get_task
from tests.conftest import ROOT, SHARED, needs_shared

GOLDEN = ROOT / "tests" / "golden" / "kitmus-tiny"
WINOGENDER = SHARED / "data" / "winogender"


def test_a_kitmus_suite_is_taken_whole_by_kitmus() -> None:
    found = folder_task(GOLDEN)
    assert found is not None and found.name == "kitmus"
    assert folder_task_of(GOLDEN).name == "kitmus"


@needs_shared(WINOGENDER)
def test_a_release_folder_is_taken_by_its_own_task() -> None:
    found = folder_task(WINOGENDER)
    assert found is not None and found.name == "winogender"


def test_a_file_or_a_folder_no_task_takes_is_none(tmp_path: Path) -> None:
    (tmp_path / "x.jsonl").write_text("{}\n", encoding="utf-8")
    assert folder_task(tmp_path / "x.jsonl") is None
    assert folder_task(tmp_path) is None
    assert folder_task(tmp_path / "absent") is None


def test_the_runner_refuses_a_folder_no_task_takes(tmp_path: Path) -> None:
    # no fallback to "the only task that runs on folders": an unknown folder is an error
    with pytest.raises(RefbenchError, match="not a folder of data that refbench runs on whole"
                       ) as err:
        folder_task_of(tmp_path)
    assert str(tmp_path) in err.value.render()


def test_a_named_task_is_taken_at_its_word_if_it_runs_on_folders(tmp_path: Path) -> None:
    kitmus = get_task("kitmus")
    assert folder_task_of(tmp_path, kitmus) is kitmus
    with pytest.raises(RefbenchError, match="runs on data files, not folders"):
        folder_task_of(GOLDEN, get_task("gap"))


def test_lm_eval_names_the_suites_subtasks_and_refuses_another_folder(tmp_path: Path) -> None:
    from refbench.runs.lm_eval.docs import folder_tasks

    task, subtasks, _ = folder_tasks(GOLDEN, "test")
    assert task.name == "kitmus" and subtasks
    with pytest.raises(RefbenchError, match="not a folder of data that refbench runs on whole"):
        folder_tasks(tmp_path, "test")


def test_the_web_app_sees_a_suite_as_one_dataset(tmp_path: Path) -> None:
    from refbench.web.datasets import is_suite, suite_files

    assert is_suite(GOLDEN) and suite_files(GOLDEN)
    assert not is_suite(tmp_path) and suite_files(tmp_path) == []
