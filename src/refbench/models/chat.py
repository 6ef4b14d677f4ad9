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

import hashlib
import json
import os
import re
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.options import Option
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput


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


class _Cache:
    def __init__(self, path: Path) -> None:
        from refbench.core.errors import OutputError
        from refbench.core.outputs import check_output_file, output_error

        check_output_file(path)  # /proc/..., a folder, a read-only place: one error line
        self.lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(path), check_same_thread=False)
            self.db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, "
                            "response TEXT NOT NULL)")
            self.db.commit()
        except OSError as exc:
            raise output_error(exc, path) from None
        except sqlite3.Error as exc:
            raise OutputError(f"cannot use the response cache ({exc})", path=path) from None

    def get(self, key: str) -> str | None:
        with self.lock:
            row = self.db.execute("SELECT response FROM responses WHERE key = ?",
                                  (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, response: str) -> None:
        with self.lock:
            self.db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?)", (key, response))
            self.db.commit()


class ChatModel(ChoiceModel):
    name = "llm-chat"
    batch_size = 32
    OPTIONS = (Option("model", str, "default", "model name (else the spec's argument)"),
               Option("base_url", str, None, "endpoint, e.g. http://127.0.0.1:8000/v1"),
               Option("api_key_env", str, "OPENAI_API_KEY", "variable holding the key"),
               Option("concurrency", int, 4, "parallel requests", min=1),
               Option("retries", int, 4, "retries per request", min=0),
               Option("timeout", float, 60.0, "seconds per request", min=0.001),
               Option("backoff", float, 0.5, "first retry delay (seconds)", min=0),
               Option("cache", str, None, "SQLite file of responses"))

    def __init__(self, argument: str | None = None, **options: Any) -> None:
        super().__init__(argument, **options)
        self.model = argument or str(self.option("model"))
        self.base_url = str(self.option("base_url") or os.environ.get("OPENAI_BASE_URL")
                            or "http://127.0.0.1:8000/v1").rstrip("/")
        self.key = os.environ.get(str(self.option("api_key_env")), "")
        self.concurrency = int(self.option("concurrency"))
        self.retries = int(self.option("retries"))
        self.timeout = float(self.option("timeout"))
        self.backoff = float(self.option("backoff"))
        from refbench.core.store_paths import default_store_path

        cache = self.option("cache") or default_store_path().with_name("chat-cache.sqlite")
        self.cache = _Cache(Path(cache))

    def config(self) -> dict[str, Any]:
        return {"name": self.name, "model": self.model, "base_url": self.base_url,
                "prompt": "v1"}

    def _request(self, prompt: str) -> str:
        body = {"model": self.model, "temperature": 0,
                "messages": [{"role": "user", "content": prompt}]}
        key = hashlib.sha256(json.dumps([self.base_url, body], sort_keys=True).encode()) \
            .hexdigest()
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        data = json.dumps(body).encode()
        last: str = ""
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(f"{self.base_url}/chat/completions", data=data,
                                         method="POST", headers={
                                             "Content-Type": "application/json",
                                             **({"Authorization": f"Bearer {self.key}"}
                                                if self.key else {})})
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    payload = json.loads(resp.read().decode("utf-8"))
                text = str(payload["choices"][0]["message"]["content"])
                self.cache.put(key, text)
                return text
            except urllib.error.HTTPError as exc:
                last = f"HTTP {exc.code}"
                if exc.code not in (408, 409, 429) and exc.code < 500:
                    break
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                last = str(getattr(exc, "reason", exc))
            except (KeyError, IndexError, ValueError) as exc:
                last = f"unexpected response ({exc})"
                break
            if attempt < self.retries:
                time.sleep(self.backoff * 2 ** attempt)
        raise RefbenchError(f"chat endpoint {self.base_url} failed after {self.retries + 1} "
                            f"attempts: {last}; responses received so far are cached")

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        prompts = [build_prompt(inst) for inst in batch]
        with ThreadPoolExecutor(max_workers=self.concurrency) as ex:
            replies = list(ex.map(self._request, prompts))
        out = []
        for inst, reply in zip(batch, replies, strict=True):
            k = parse_answer(reply, inst)
            scores = tuple(1.0 if i == k else 0.0 for i in range(len(inst.candidates)))
            out.append(ModelOutput(k, scores, extra={"reply": reply[:500]}))
        return out
