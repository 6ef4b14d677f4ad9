"""What the models that call an inference server share: a response cache and a JSON POST with
retries and exponential backoff.

Both ``llm-chat`` (chat completions) and ``llm-loglik`` through a server (completions with
``echo``) send many small requests to an endpoint that may be slow, overloaded or restarting.
Each response is cached in SQLite as soon as it arrives, keyed by the endpoint and the request
body, so an interrupted or failing run keeps what was done and a repeated run sends nothing.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import sqlite3
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from refbench.core.errors import E_USAGE, RefbenchError, UsageError
from refbench.core.options import Option


def server_options(*, concurrency: int) -> tuple[Option, ...]:
    """The options every server-backed model declares (``--model-arg key=value``), with the
    model's own default ``concurrency``: a hosted chat API (``llm-chat``) is pressed gently, a
    completions server of one's own (``llm-loglik`` with ``base_url``) kept busy."""
    return (
        Option("api_key_env", str, "OPENAI_API_KEY", "variable holding the key"),
        Option("concurrency", int, concurrency, "parallel requests", min=1),
        Option("retries", int, 4, "retries per request", min=0),
        Option("timeout", float, 60.0, "seconds per request, in all (a trickled answer too)",
               min=0.001),
        Option("backoff", float, 0.5, "first retry delay (seconds)", min=0),
        Option("cache", str, None, "SQLite file of responses"),
    )


# Their names: the values a model passes on to its Endpoint.
SERVER_OPTION_NAMES = tuple(o.name for o in server_options(concurrency=1))


class ResponseCache:
    """An SQLite table of responses keyed by a request hash; safe across threads."""

    def __init__(self, path: Path) -> None:
        from refbench.core.errors import OutputError
        from refbench.core.output_checks import check_output_file, output_error

        check_output_file(path)  # /proc/..., a folder, a read-only place: one error line
        self.lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(path), check_same_thread=False)
            # Write-ahead log, synced at checkpoints: a response is committed as it arrives and
            # survives the process being killed, without an fsync per response (14 ms each
            # here, which serialised a whole server run behind the cache's lock).
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
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


def read_within(resp: Any, seconds: float, started: float) -> bytes:
    """The whole body of ``resp``, read as it arrives, within ``seconds`` of ``started`` (a
    ``time.monotonic()``) in all: a server that trickles its answer a byte at a time is a
    ``TimeoutError`` at the bound, not a wait without end (each read also waits at most the
    socket's timeout, so the bound is kept to within one ``timeout``)."""
    parts: list[bytes] = []
    while True:
        if time.monotonic() - started > seconds:
            raise TimeoutError(f"no complete answer within {seconds:g} s")
        chunk = resp.read1(1 << 16)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)


def request_key(url: str, body: Any) -> str:
    return hashlib.sha256(json.dumps([url, body], sort_keys=True).encode()).hexdigest()


def check_base_url(url: str) -> str:
    """``url`` when it is an http(s) URL with a host (and a valid port), else a usage error:
    ``urllib`` would fail on it later with a ``ValueError`` traceback."""
    expected = "expected an http:// or https:// URL such as http://127.0.0.1:8000/v1"
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number 0-65535)
    except ValueError as exc:
        raise UsageError(f"base_url {url!r}: {expected} ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"base_url {url!r}: {expected}")
    if any(c.isspace() or ord(c) < 32 for c in url):
        raise UsageError(f"base_url {url!r}: {expected} (no spaces or control characters)")
    return url


class Endpoint:
    """An OpenAI-compatible server at ``base_url`` (``http://HOST:PORT/v1``), with the shared
    options' retry, backoff, timeout and cache settings.

    Before its first request goes out (never for a run answered from the cache) the server is
    probed once with ``GET base_url/models``: any HTTP status will do, but a service that does
    not speak HTTP (an SSH port's banner, a Dask scheduler), one that closes the connection,
    and one that accepts and says nothing for ``timeout`` seconds are one error naming the
    address, what it did and the bound waited, instead of a traceback or minutes of retries.
    """

    def __init__(self, base_url: str | None, options: dict[str, Any],
                 default_cache: str = "chat-cache.sqlite") -> None:
        given = str(base_url or os.environ.get("OPENAI_BASE_URL") or "http://127.0.0.1:8000/v1")
        self.base_url = check_base_url(given).rstrip("/")
        self._probed = False
        self._probe_lock = threading.Lock()
        self.key = os.environ.get(str(options["api_key_env"]), "")
        self.concurrency = int(options["concurrency"])
        self.retries = int(options["retries"])
        self.timeout = float(options["timeout"])
        self.backoff = float(options["backoff"])
        from refbench.core.store_paths import default_store_path

        cache = options["cache"] or default_store_path().with_name(default_cache)
        self.cache = ResponseCache(Path(cache))

    @property
    def root(self) -> str:
        """The server's address without the API version (where ``/tokenize`` lives)."""
        return self.base_url[:-3] if self.base_url.endswith("/v1") else self.base_url

    def probe(self) -> None:
        """Make sure the service at ``base_url`` speaks HTTP (once per endpoint; see the class
        docstring). An answer that is not HTTP, a connection closed without an answer and
        silence for ``timeout`` seconds are errors here; a refused connection or an unknown
        host is left to the request's own retries and message (a server may be starting)."""
        with self._probe_lock:
            if self._probed:
                return
            what = "expected an OpenAI-compatible HTTP server"
            req = urllib.request.Request(f"{self.base_url}/models", method="GET",
                                         headers=self._headers())
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    resp.read1(1 << 16)
            except urllib.error.HTTPError:
                pass  # any HTTP status: an HTTP server answers
            except http.client.RemoteDisconnected:
                raise RefbenchError(f"{self.base_url}: the service there closed the "
                                    f"connection without an HTTP answer; {what}",
                                    code=E_USAGE) from None
            except http.client.HTTPException as exc:
                text = str(exc).strip()
                shown = repr(text[:60]) if text else type(exc).__name__
                raise RefbenchError(f"{self.base_url}: the service there does not speak HTTP "
                                    f"(it answered {shown}); {what}", code=E_USAGE) from None
            except OSError as exc:  # URLError, timeouts, refused and reset connections
                if isinstance(getattr(exc, "reason", exc), TimeoutError):
                    raise RefbenchError(f"{self.base_url}: no HTTP answer within "
                                        f"{self.timeout:g} s (the timeout option); {what}",
                                        code=E_USAGE) from None
                return  # not reached: the request says so after its retries
            self._probed = True

    def post_once(self, url: str, body: dict[str, Any]) -> tuple[int, Any]:
        """One POST without retries: (HTTP status, parsed JSON or None). For probing optional
        routes, where a 404 is an answer, not a failure."""
        self.probe()
        req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers=self._headers())
        try:
            started = time.monotonic()
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return int(resp.status), json.loads(
                    read_within(resp, self.timeout, started).decode("utf-8"))
        except urllib.error.HTTPError as exc:
            return int(exc.code), None
        except (urllib.error.URLError, TimeoutError, ConnectionError, ValueError,
                http.client.HTTPException):
            return 0, None

    def _headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json",
                **({"Authorization": f"Bearer {self.key}"} if self.key else {})}

    def post(self, route: str, body: dict[str, Any], what: str) -> Any:
        """POST ``body`` to ``base_url/route`` (or to ``route`` when it is a whole URL) and
        return the parsed JSON response, from the cache when this exact request was answered
        before. Retries on timeouts, connection
        errors, 408/409/429 and 5xx with exponential backoff; anything else is an error that
        names the endpoint."""
        url = route if route.startswith(("http://", "https://")) else f"{self.base_url}/{route}"
        key = request_key(url, body)
        cached = self.cache.get(key)
        if cached is not None:
            return json.loads(cached)
        self.probe()
        data = json.dumps(body).encode()
        last = ""
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(url, data=data, method="POST", headers=self._headers())
            try:
                started = time.monotonic()
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    text = read_within(resp, self.timeout, started).decode("utf-8")
                payload = json.loads(text)
                self.cache.put(key, text)
                return payload
            except urllib.error.HTTPError as exc:
                last = f"HTTP {exc.code}"
                if exc.code not in (408, 409, 429) and exc.code < 500:
                    break
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                last = str(getattr(exc, "reason", exc))
            except http.client.HTTPException as exc:
                last = f"an answer that is not HTTP ({type(exc).__name__})"
                break
            except ValueError as exc:
                last = f"unexpected response ({exc})"
                break
            if attempt < self.retries:
                time.sleep(self.backoff * 2 ** attempt)
        raise RefbenchError(f"{what} endpoint {url} failed after {attempt + 1} attempts: "
                            f"{last}; responses received so far are cached")
