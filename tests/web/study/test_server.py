"""A running server on 127.0.0.1: 10 annotators answering 500 items at once, and a server killed
mid-study (SIGKILL) that loses nothing it acknowledged."""

from __future__ import annotations

import csv
import http.client
import io
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from refbench.studies.export import export
from refbench.studyfile.db import StudyStore
from refbench.tasks.kitmus.study import create_kitmus_study
from tests.studies.conftest import make_suite
from tests.web.study.server_harness import Server, get, post_answer

N_ITEMS, N_ANNOTATORS = 500, 10


@pytest.fixture(scope="module")
def suite500(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_suite(tmp_path_factory.mktemp("s500") / "suite", variants=["background-pretrain"],
                      entities=[2], size=N_ITEMS, formats=["jsonl"])


def make_study(out: Path, suite: Path) -> Path:
    create_kitmus_study(suite, out, n=N_ITEMS, conditions=["with-knowledge"], gold_checks=0,
                        annotators=[f"ann{i}" for i in range(1, N_ANNOTATORS + 1)], seed=0,
                        overlap=1, progress=False)
    return out


def choice_for(name: str, pos: int, *, final: bool) -> str:
    return ["0", "1", "cant"][zlib.crc32(f"{name}:{pos}:{final}".encode()) % 3]


def test_ten_annotators_five_hundred_items_concurrently(tmp_path: Path, suite500: Path) -> None:
    study = make_study(tmp_path / "load.sqlite", suite500)
    server = Server(study)
    start = threading.Barrier(N_ANNOTATORS)
    sent: dict[tuple[str, int], str] = {}
    posts = []

    def annotate(name: str) -> None:
        link = server.links[name]
        start.wait()
        for pos in range(1, N_ITEMS // N_ANNOTATORS + 1):
            status, page = get(f"{link}{pos}")
            assert status == 200 and "Who does" in page
            first = choice_for(name, pos, final=False)
            if pos % 3 == 0:  # change one answer in three: updates, not duplicates
                status, body = post_answer(link, pos, {"choice": first})
                assert status == 200 and body["ok"], body
                posts.append(1)
            final = choice_for(name, pos, final=True)
            status, body = post_answer(link, pos, {"choice": final})
            assert status == 200 and body["ok"], body
            posts.append(1)
            sent[(name, pos)] = final

    try:
        with ThreadPoolExecutor(N_ANNOTATORS) as pool:
            for fut in [pool.submit(annotate, f"ann{i}") for i in range(1, N_ANNOTATORS + 1)]:
                fut.result()
        text, _ = export(study, "csv", None)  # while the server still runs (WAL readers)
    finally:
        server.stop()
    assert text is not None
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == N_ITEMS == len(sent)
    assert len({(r["item"], r["annotator"]) for r in rows}) == N_ITEMS
    assert len({r["item"] for r in rows}) == N_ITEMS  # overlap 1: every item answered once
    with StudyStore(study) as st:
        assert st.log_size() == len(posts)
        assert st.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        by_pos = {(a.name, pos + 1): (item, st.item(item))
                  for a in st.annotators() for pos, item, _ in st.assignments(a.id)}
    labels = {(r["annotator"], r["item"]): r["label"] for r in rows}
    for (name, pos), choice in sent.items():
        item_id, item = by_pos[(name, pos)]
        assert item is not None
        want = "can't say" if choice == "cant" else item.payload["candidates"][int(choice)]
        assert labels[(name, item_id)] == want


def test_killed_server_loses_nothing_it_acknowledged(tmp_path: Path, suite500: Path) -> None:
    study = make_study(tmp_path / "kill.sqlite", suite500)
    acked: dict[tuple[str, int], str] = {}
    stop = threading.Event()
    server = Server(study)
    links = dict(server.links)

    def annotate(name: str) -> None:
        for pos in range(1, N_ITEMS // N_ANNOTATORS + 1):
            if stop.is_set():
                return
            choice = choice_for(name, pos, final=True)
            try:
                status, body = post_answer(links[name], pos, {"choice": choice})
            except (OSError, ValueError, http.client.HTTPException):
                # the server died under this request, or cut its response off: not acknowledged
                return
            if status == 200 and body.get("ok"):
                acked[(name, pos)] = choice

    names = [f"ann{i}" for i in range(1, 5)]
    with ThreadPoolExecutor(len(names)) as pool:
        futures = [pool.submit(annotate, n) for n in names]
        while len(acked) < 40:
            threading.Event().wait(0.02)
        server.kill()  # mid-stream, requests in flight
        stop.set()
        for f in futures:
            f.result()
    assert len(acked) >= 40
    again = Server(study)  # same file, fresh process; tokens unchanged
    try:
        def paths(ls: dict[str, str]) -> dict[str, str]:
            return {k: v.split("/", 3)[3] for k, v in ls.items()}

        assert paths(again.links) == paths(links)  # same tokens (the port is new)
        links = again.links
        with StudyStore(study) as st:
            assert st.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            ids = {a.name: a.id for a in st.annotators()}
            for (name, pos), choice in acked.items():
                item = st.assignments(ids[name])[pos - 1][1]
                got = st.answers_of(ids[name], item)[item][""]["choice"]
                assert got == (None if choice == "cant" else int(choice)), (name, pos)
        status, body = post_answer(links["ann1"], 50, {"choice": "1"})
        assert status == 200 and body["ok"]
        status, page = get(f"{links['ann1']}")
        assert status == 200 and "Continue with item" in page
    finally:
        again.stop()


def test_serve_errors_are_one_line(tmp_path: Path, suite500: Path) -> None:
    import socket

    from tests.conftest import run_cli

    r = run_cli("study", "serve", str(tmp_path / "missing.sqlite"))
    assert r.returncode == 2 and r.stderr.startswith("error E400:") and "Traceback" not in r.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        study = tmp_path / "s.sqlite"
        create_kitmus_study(suite500, study, n=2, conditions=["with-knowledge"], gold_checks=0,
                            annotators=["a"], seed=0, progress=False)
        r = run_cli("study", "serve", str(study), "--port", str(port))
    assert r.returncode == 2 and "cannot listen on 127.0.0.1" in r.stderr
    assert "Traceback" not in r.stderr


def test_loopback_names() -> None:
    from refbench.web.study.server import is_loopback

    assert all(is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "127.0.0.2"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "192.168.1.4", "example.org", "::"))
