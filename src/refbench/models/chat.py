"""``llm-chat``: any OpenAI-compatible chat-completions endpoint.

``llm-chat:MODEL`` with options ``base_url`` (default ``$OPENAI_BASE_URL`` or
``http://127.0.0.1:8000/v1``), ``api_key_env`` (the variable holding the key, default
``OPENAI_API_KEY``), ``concurrency`` (parallel requests, default 4), ``retries`` (default 4,
exponential backoff), ``timeout`` (seconds) and ``cache`` (an SQLite file of responses, default
beside the results store). Each response is cached as soon as it arrives, so an interrupted or
failing run keeps what was done. Answers are parsed from chatty replies: an option number,
a letter, or a candidate's name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.options import Option
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput
from refbench.models.http import SERVER_OPTION_NAMES, Endpoint, server_options

# Parallel requests by default: a hosted chat API is usually paid and rate-limited, so it is
# pressed gently (a completions server of one's own is kept busier: llm-loglik's default).
CONCURRENCY = 4


def build_prompt(inst: ChoiceInstance) -> str:
    options = "\n".join(f"{k + 1}. {c.text}" + (f" ({c.description[:300]})" if c.description
                                               else "") for k, c in enumerate(inst.candidates))
    if inst.expression_offset is not None:
        question = (f"In the text below, who or what does \"{inst.expression}\" (at character "
                    f"{inst.expression_offset}) refer to?\n\nText: {inst.context}")
    else:
        question = (f"Context: {inst.context}\nThe user then said: \"{inst.expression}\"\n"
                    "Which option did the user mean?")
    return f"{question}\n\nOptions:\n{options}\n\nAnswer with the option number."


def parse_answer(reply: str, inst: ChoiceInstance) -> int | None:
    """The option a (possibly chatty) reply chooses, or None when it commits to none."""
    n = len(inst.candidates)
    text = reply.strip()
    for pattern in (r"(?:answer|option|choice)\s*(?:is|:)?\s*\**\s*\(?(\d+)\)?",
                    r"^\s*\**\(?(\d+)\)?[.):\s*]", r"\b(\d+)\b"):
        for m in re.finditer(pattern, text, flags=re.IGNORECASE | re.MULTILINE):
            k = int(m.group(1)) - 1
            if 0 <= k < n:
                return k
    letter = re.search(r"\b(?:option|answer)\s*(?:is\s*)?\(?([A-Z])\)?\b", text)
    if letter and 0 <= ord(letter.group(1)) - 65 < n:
        return ord(letter.group(1)) - 65
    named = [k for k, c in enumerate(inst.candidates) if c.text.lower() in text.lower()]
    return named[0] if len(named) == 1 else None


class ChatModel(ChoiceModel):
    name = "llm-chat"
    batch_size = 32
    OPTIONS = (Option("model", str, "default", "model name (else the spec's argument)"),
               Option("base_url", str, None, "endpoint, e.g. http://127.0.0.1:8000/v1"),
               *server_options(concurrency=CONCURRENCY))

    def __init__(self, argument: str | None = None, **options: Any) -> None:
        super().__init__(argument, **options)
        self.model = argument or str(self.option("model"))
        self.endpoint = Endpoint(self.option("base_url"),
                                 {n: self.option(n) for n in SERVER_OPTION_NAMES})
        self.base_url = self.endpoint.base_url

    def config(self) -> dict[str, Any]:
        return {"name": self.name, "model": self.model, "base_url": self.base_url,
                "prompt": "v1"}

    def _request(self, prompt: str) -> str:
        body = {"model": self.model, "temperature": 0,
                "messages": [{"role": "user", "content": prompt}]}
        payload = self.endpoint.post("chat/completions", body, "chat")
        try:
            return str(payload["choices"][0]["message"]["content"])
        except (KeyError, IndexError, TypeError):
            raise RefbenchError(f"chat endpoint {self.base_url}/chat/completions answered "
                                "without choices[0].message.content") from None

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        prompts = [build_prompt(inst) for inst in batch]
        with ThreadPoolExecutor(max_workers=self.endpoint.concurrency) as ex:
            replies = list(ex.map(self._request, prompts))
        out = []
        for inst, reply in zip(batch, replies, strict=True):
            k = parse_answer(reply, inst)
            scores = tuple(1.0 if i == k else 0.0 for i in range(len(inst.candidates)))
            out.append(ModelOutput(k, scores, extra={"reply": reply[:500]}))
        return out
