"""The models llm-loglik scores, from any file, and a real vLLM server scoring them: the
default GGUF, any GGUF file (``llm-loglik:FILE.gguf``) and its export as a Hugging Face folder
(``refbench llm export-hf``) score the same in process; vLLM serving that folder gives the
in-process answer on WSC273 (the recorded in-process predictions in benchmarks/results,
checked against a fresh in-process run of their first instances)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from refbench.models.base import build_model
from refbench.models.llm_weights import SMOLLM2_FILE, smollm2_dir
from refbench.runs.runner import predict_all
from refbench.tasks.choices import read_choices
from tests.conftest import ROOT, SHARED, needs_shared, run_cli
from tests.models.conftest import DATA

WSC273 = SHARED / "data" / "winograd" / "wsc273.jsonl"
RECORDED = ROOT / "benchmarks" / "results" / "llm-loglik-smollm2" / "test.predictions.jsonl.gz"


def recorded() -> dict[str, dict[str, Any]]:
    """The in-process answers and scores of the default model on WSC273, by instance id."""
    with gzip.open(RECORDED, "rt", encoding="utf-8") as fh:
        return {r["id"]: r for r in map(json.loads, fh)}


def scores(model: Any, instances: list[Any]) -> list[tuple[float, ...]]:
    outputs, _ = predict_all(model, instances, None, progress=False)
    return [o.scores for o in outputs]


@pytest.fixture(scope="module")
def gguf_lm() -> Any:
    """The default model, named by its GGUF file (``llm-loglik:FILE.gguf``), in process."""
    return build_model(f"llm-loglik:{smollm2_dir() / SMOLLM2_FILE}")


def test_a_gguf_file_and_its_hf_export_score_the_same(gguf_lm: Any, smollm2_hf: Path) -> None:
    config = json.loads((smollm2_hf / "config.json").read_text())
    assert "quantization_config" not in config and config["architectures"] == [
        "LlamaForCausalLM"]
    assert (smollm2_hf / "model.safetensors").is_file()
    assert (smollm2_hf / "tokenizer.json").is_file()
    instances = list(read_choices(DATA["winograd"]))
    gguf = scores(gguf_lm, instances)
    folder = scores(build_model(f"llm-loglik:{smollm2_hf}"), instances)
    assert all(abs(a - b) < 1e-4 for g, f in zip(gguf, folder, strict=True)
               for a, b in zip(g, f, strict=True))


@needs_shared(WSC273)
def test_the_recorded_in_process_answers_are_current(gguf_lm: Any) -> None:
    """The first instances of WSC273, scored in process now, as recorded."""
    instances = list(read_choices(WSC273))[:6]
    want = recorded()
    for inst, s in zip(instances, scores(gguf_lm, instances), strict=True):
        assert all(abs(a - b) < 1e-4 for a, b in zip(s, want[inst.id]["scores"], strict=True))


def test_export_hf_cli(tmp_path: Path, tiny_lm: Path) -> None:
    """A Hugging Face folder exported as itself (a tiny model: the CLI, not the weights, is
    under test here); the copy scores as the original; bad input is one error line."""
    done = run_cli("llm", "export-hf", f"llm-loglik:{tiny_lm}", "--out", str(tmp_path / "copy"),
                   "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["architecture"] == "LlamaForCausalLM"
    instances = list(read_choices(DATA["winograd"]))
    assert scores(build_model(f"llm-loglik:{tmp_path / 'copy'}"), instances) == scores(
        build_model(f"llm-loglik:{tiny_lm}"), instances)
    again = run_cli("llm", "export-hf", str(tiny_lm), "--out", str(tmp_path / "copy"))
    assert again.returncode == 2 and "--overwrite" in again.stderr
    bad = tmp_path / "notes.txt"
    bad.write_text("x")
    wrong = run_cli("llm", "export-hf", str(bad), "--out", str(tmp_path / "w"))
    assert wrong.returncode == 2 and ".gguf file" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1 and not (tmp_path / "w").exists()


@needs_shared(WSC273)
def test_vllm_gives_the_in_process_answers_on_wsc273(vllm_url: str, smollm2_hf: Path,
                                                     tmp_path: Path) -> None:
    instances = list(read_choices(WSC273))
    want = recorded()
    model = build_model(f"llm-loglik:{smollm2_hf}", {
        "base_url": vllm_url, "cache": str(tmp_path / "c.db"), "batch_size": "8",
        "timeout": "600"})
    # vLLM names the model by the folder it serves: its tokenizer is used here, once it
    # splits the probe texts as the server's /tokenize does
    assert model.config()["tokenizer"] == f"local:{smollm2_hf}"
    outputs, _ = predict_all(model, instances, None, progress=False)
    same = sum(o.answer == want[i.id]["answer"] for i, o in zip(instances, outputs, strict=True))
    diff = max(abs(a - b) for i, o in zip(instances, outputs, strict=True)
               for a, b in zip(o.scores, want[i.id]["scores"], strict=True))
    assert same >= 0.99 * len(instances) and diff < 1e-3, (same, diff)


@needs_shared(WSC273)
def test_vllm_through_its_own_tokenizer(vllm_url: str, smollm2_hf: Path,
                                        tmp_path: Path) -> None:
    """tokenizer=server: every prompt split by the server's /tokenize, as for a remote server
    whose model folder is not on this machine (a few instances: the server is shared)."""
    instances = list(read_choices(WSC273))[:8]
    want = recorded()
    model = build_model(f"llm-loglik:{smollm2_hf}", {
        "base_url": vllm_url, "cache": str(tmp_path / "c.db"), "tokenizer": "server",
        "timeout": "600"})
    assert model.config()["tokenizer"] == "server:tokenize"
    got = scores(model, instances)
    assert all(abs(a - b) < 1e-3 for i, s in zip(instances, got, strict=True)
               for a, b in zip(s, want[i.id]["scores"], strict=True))

