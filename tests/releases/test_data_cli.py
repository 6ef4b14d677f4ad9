"""``refbench data get/list/path`` end to end against a loopback HTTP mirror of ../shared/data
(a tmp copy of a few release files served by ``http.server`` on 127.0.0.1): a good fetch, a
wrong checksum, a truncated file and a connection dropped mid-body, each failure one error
line with exit 2 and nothing half-written in the data folder; ``run --data NAME:split`` on
what was fetched. No test reaches beyond the loopback server."""

from __future__ import annotations

import functools
import json
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED, needs_shared, run_cli

DATA = SHARED / "data"
MIRRORED = ["winograd/wsc273.jsonl",
            "kitmus-official/predictions/c2f-run1.background-train.subtask_2_ents.test.jsonlines.gz",
            "kitmus-official/predictions/grep-run1.background-train.subtask_2_ents.test.tsv"]
pytestmark = needs_shared(DATA / MIRRORED[0])


class Mirror:
    """A tmp copy of some release files, served on loopback; ``cut`` names files whose body
    is sent only half-way before the connection is closed (the headers promise all of it)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.cut: set[str] = set()
        self.requests: list[str] = []
        mirror = self

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                rel = self.path.lstrip("/")
                mirror.requests.append(rel)
                if rel not in mirror.cut:
                    super().do_GET()
                    return
                body = (mirror.folder / rel).read_bytes()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True

        handler = functools.partial(Handler, directory=str(folder))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def mirror(tmp_path: Path) -> Iterator[Mirror]:
    folder = tmp_path / "mirror"
    for rel in MIRRORED:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(DATA / rel, folder / rel)
    served = Mirror(folder)
    try:
        yield served
    finally:
        served.close()


def files_in(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def get(mirror: Mirror, target: Path, *names: str) -> Any:
    return run_cli("data", "get", *names, "--dir", str(target), "--mirror", mirror.url,
                   "--retries", "0")


def test_get_list_path_and_run(mirror: Mirror, tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "data"
    done = get(mirror, target, "wsc273", "kitmus-predictions")
    assert done.returncode == 0, done.stderr
    assert "licence: CC BY 4.0" in done.stdout and "licence: CC BY-SA 3.0" in done.stdout
    # the mirror's forms, byte for byte (the C2F file stays gzipped, as the mirror keeps it)
    assert files_in(target) == sorted(MIRRORED)
    for rel in MIRRORED:
        assert (target / rel).read_bytes() == (DATA / rel).read_bytes()
    again = get(mirror, target, "wsc273")
    assert again.returncode == 0 and "0 fetched, 1 already there" in again.stdout
    assert mirror.requests.count("winograd/wsc273.jsonl") == 1  # checked, not fetched again

    listed = run_cli("data", "list", "--dir", str(target), "--verify", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {r["name"]: r for r in json.loads(listed.stdout)["releases"]}
    assert rows["wsc273"]["state"] == "complete" and rows["kitmus-predictions"]["have"] == 2
    assert rows["gap"]["state"] == "absent" and rows["gap"]["have"] == 0
    assert [m["file"] for m in rows["tne"]["mirror_only"]] == [
        "tne/train-reconstructed-v1.1.jsonl.gz", "tne/RECONSTRUCTED.md"]
    text = run_cli("data", "list", "--dir", str(target)).stdout
    assert "not at a public URL: tne/train-reconstructed-v1.1.jsonl.gz" in text

    where = run_cli("data", "path", "kitmus-predictions:c2f-run1", "--dir", str(target))
    assert where.stdout.strip() == str(target / MIRRORED[1])

    monkeypatch.setenv("REFBENCH_DATA_DIR", str(target))
    out = tmp_path / "run"
    ran = run_cli("run", "--model", "first", "--data", "wsc273:test", "--out",
                      str(out), "--no-store", "--json")
    assert ran.returncode == 0, ran.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["n"] == 273 and metrics["data"] == str(target / "winograd" / "wsc273.jsonl")
    missing = run_cli("run", "--model", "first", "--data", "gap", "--out",
                          str(tmp_path / "r2"), "--no-store")
    assert missing.returncode == 2
    assert "refbench data get gap" in missing.stderr and len(missing.stderr.splitlines()) == 1


@pytest.mark.parametrize("fault", ["wrong checksum", "truncated file", "interrupted download"])
def test_a_bad_download_is_one_error_and_leaves_nothing(mirror: Mirror, tmp_path: Path,
                                                        fault: str) -> None:
    rel = MIRRORED[0]
    served = mirror.folder / rel
    good = served.read_bytes()
    if fault == "wrong checksum":  # same size, one byte changed
        served.write_bytes(good[:100] + bytes([good[100] ^ 1]) + good[101:])
    elif fault == "truncated file":
        served.write_bytes(good[: len(good) // 3])
    else:
        mirror.cut.add(rel)
    target = tmp_path / "data"
    failed = get(mirror, target, "wsc273")
    assert failed.returncode == 2
    lines = failed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error E500: "), failed.stderr
    assert f"{mirror.url}/{rel}" in lines[0] and "Traceback" not in failed.stderr
    assert ("sha256 differs" in lines[0]) == (fault != "interrupted download")
    assert not target.exists() or files_in(target) == []  # no partial, no temporary file
    served.write_bytes(good)
    mirror.cut.clear()
    fixed = get(mirror, target, "wsc273")
    assert fixed.returncode == 0, fixed.stderr
    assert files_in(target) == [rel] and (target / rel).read_bytes() == good


def test_a_path_that_exists_wins_over_a_release_name(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFBENCH_DATA_DIR", str(tmp_path / "empty"))  # the release is not there
    local = tmp_path / "wsc273"
    shutil.copyfile(DATA / MIRRORED[0], local)
    out = tmp_path / "run"
    ran = run_cli("run", "--model", "first", "--data", "wsc273", "--task", "winograd", "--out",
                  str(out), "--no-store", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    # the local file ran, recorded by its resolved path (a release would be under the data dir)
    assert json.loads((out / "metrics.json").read_text())["data"] == str(local.resolve())
    typo = run_cli("run", "--model", "first", "--data", "wsc237", "--out", str(out) + "2",
                   "--no-store", cwd=tmp_path)
    assert typo.returncode == 2 and "did you mean wsc273?" in typo.stderr
