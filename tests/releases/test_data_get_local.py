"""``data get`` (issue 50, point 8): a local folder or ``file://`` URL as the mirror, a file
where a release folder must go, and two fetches into one data folder at once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from tests.conftest import SHARED, needs_shared

DATA = SHARED / "data"


def _cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    from refbench.cli import app
    from refbench.core.commands import run_guarded

    code = run_guarded(app, [str(a) for a in args])
    got = capsys.readouterr()
    return code, got.out, got.err


@needs_shared(DATA / "winograd")
@pytest.mark.parametrize("form", ["folder", "url"])
def test_a_local_folder_or_file_url_is_a_mirror(form: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    mirror = str(DATA) if form == "folder" else DATA.resolve().as_uri()
    code, out, err = _cli(capsys, "data", "get", "wsc273", "--dir", tmp_path / "d", "--mirror",
                          mirror)
    assert code == 0, err
    assert "1 fetched" in out and "complete" in out
    assert (tmp_path / "d" / "winograd" / "wsc273.jsonl").read_bytes() == (
        DATA / "winograd" / "wsc273.jsonl").read_bytes()


def test_a_mirror_folder_that_does_not_exist_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(capsys, "data", "get", "wsc273", "--dir", tmp_path / "d", "--mirror",
                        tmp_path / "nowhere")
    assert code == 2 and err.startswith("error E100") and "no such folder" in err
    code, _, err = _cli(capsys, "data", "get", "wsc273", "--dir", tmp_path / "d", "--mirror",
                        "ftp://example.org/x")
    assert code == 2 and "file:// URL or a local folder" in err


def test_a_file_where_the_release_folder_goes_is_one_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "winograd").write_text("not a folder\n")
    code, _, err = _cli(capsys, "data", "get", "wsc273", "--dir", tmp_path)
    assert code == 2, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error E400") and "winograd" in last and "needs a folder" in last
    assert "Traceback" not in err and (tmp_path / "winograd").read_text() == "not a folder\n"


@needs_shared(DATA / "winograd")
def test_a_second_get_into_the_same_folder_waits_for_the_first(tmp_path: Path) -> None:
    from refbench.releases.fetch import data_lock, get, mirror_source
    from refbench.releases.manifest import get_release

    said: list[str] = []
    done: list[object] = []
    root = tmp_path / "d"
    mirror = mirror_source(str(DATA))
    with data_lock(root):  # the first data get, still writing
        second = threading.Thread(target=lambda: done.append(
            get(get_release("wsc273"), root, mirror=mirror, progress=False, say=said.append)))
        second.start()
        time.sleep(0.6)
        assert not done and said == [f"waiting for another refbench data get writing {root}"]
    second.join(timeout=30)
    assert done and [f.action for f in done[0]] == ["fetched"]  # type: ignore[attr-defined]


def test_the_wait_for_the_lock_is_bounded(tmp_path: Path) -> None:
    from refbench.releases.fetch import data_lock

    with data_lock(tmp_path), pytest.raises(RefbenchError, match="for over 0 s"), \
            data_lock(tmp_path, wait=0.3):
        pass
