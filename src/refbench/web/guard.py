"""Defences shared by the two web servers (``refbench serve`` and ``refbench study serve``)
against hostile clients; both apps call :func:`setup_app` right after creating the Flask app
(these checks and one set of security headers, :data:`SECURITY_HEADERS`) and :func:`mount` to
register the study blueprints.

* Host header: only the names the server was started for (loopback names, ``--host``, and the
  ``--trusted-host`` names a reverse proxy forwards) are answered; anything else is a 400 before
  routing, so a DNS-rebinding page cannot talk to the server and no redirect echoes a foreign
  host in its ``Location``.
* Cross-origin writes: a POST (PUT, PATCH, DELETE) whose ``Sec-Fetch-Site`` is neither
  ``same-origin`` nor ``none``, or whose ``Origin`` names another host, is a 403, even with a
  valid token in its URL. Clients that send neither header (curl, scripts) are not browsers
  and cannot be made to post on someone's behalf.
* Bodies: a declared ``Content-Length`` over :data:`MAX_BODY` is a 413 before anything is read;
  ``MAX_CONTENT_LENGTH`` bounds chunked bodies the same way.
* Numbers in paths: ``<int:...>`` stops at 2**63 - 1 (a larger one is a 404, not an
  ``OverflowError`` from SQLite).
* Logs: annotator and admin tokens are replaced by ``<token>`` in the access log and in error
  logs (:func:`redact`), so a log file never grants access to a study.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, abort, request
from werkzeug.routing import IntegerConverter
from werkzeug.serving import WSGIRequestHandler

MAX_BODY = 2 * 1024 * 1024  # the largest study answer (a TNE document's links) is a few kB
INT64_MAX = 2**63 - 1
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_TOKEN_IN_PATH = re.compile(r"(/(?:a|admin)/)[A-Za-z0-9_-]{8,}")


def redact(text: str) -> str:
    """``text`` (a request line, a path) with study tokens replaced by ``<token>``."""
    return _TOKEN_IN_PATH.sub(r"\1<token>", text)


def is_loopback(host: str) -> bool:
    if host.strip("[]") in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(bind: str = "127.0.0.1", trusted: Iterable[str] = ()) -> frozenset[str]:
    """Host names (no port) the server answers to: loopback names, the bind address unless it
    is a wildcard, and the names given with ``--trusted-host``."""
    names = set(LOOPBACK_NAMES)
    if bind not in ("0.0.0.0", "::", ""):
        names.add(bind.strip("[]").lower())
    names.update(h.strip().strip("[]").lower() for h in trusted if h.strip())
    return frozenset(names)


def url_host(bind: str, trusted: Iterable[str] = ()) -> str:
    """The host to print in links: the bind address, or for a wildcard bind (which no Host
    header names) the first trusted name, else 127.0.0.1; IPv6 in brackets."""
    host = bind
    if bind in ("0.0.0.0", "::", ""):
        host = next((h for h in trusted if h.strip()), "127.0.0.1")
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def host_name(host: str) -> str:
    """``example.org:8000`` -> ``example.org``; ``[::1]:8000`` -> ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class BoundedInt(IntegerConverter):
    """``<int:...>`` that matches only numbers SQLite can bind (larger ones are a 404)."""

    def __init__(self, map: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", INT64_MAX)
        super().__init__(map, *args, **kwargs)


class RedactingHandler(WSGIRequestHandler):
    """Werkzeug's request handler with tokens redacted from every log line."""

    def log(self, type: str, message: str, *args: Any) -> None:
        super().log(type, message, *(redact(a) if isinstance(a, str) else a for a in args))


def install_converters(app: Flask) -> None:
    """Call before any blueprint is registered (rules are compiled on registration)."""
    app.url_map.converters["int"] = BoundedInt


def install(app: Flask, hosts: frozenset[str] | None = None) -> None:
    """Host, origin and body-size checks on every request of ``app`` (see the module doc)."""
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.config["ALLOWED_HOSTS"] = hosts if hosts is not None else allowed_hosts()

    @app.before_request
    def _guard() -> None:
        allowed: frozenset[str] = app.config["ALLOWED_HOSTS"]
        if host_name(request.host) not in allowed:
            abort(400, description="This server does not answer to that host name (start it "
                                   "with --trusted-host NAME for a name a proxy forwards).")
        if request.content_length is not None and request.content_length > MAX_BODY:
            abort(413, description=f"Request bodies are limited to {MAX_BODY // 1024} kB.")
        if request.method in WRITES and not same_origin():
            abort(403, description="Cross-site form posts are refused.")


def same_origin() -> bool:
    """Whether a write request comes from this server's own pages (or from no browser)."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    if origin == "null" and site == "same-origin":
        # Pages sent with ``Referrer-Policy: no-referrer`` (the study pages) make Chromium send
        # ``Origin: null`` on their own form posts; Sec-Fetch-Site, which no page can set,
        # still says the post came from this origin.
        return True
    parts = urlsplit(origin)
    return origin != "null" and bool(parts.netloc) and \
        parts.netloc.lower() == request.host.lower()


# Every page's response headers, in both servers: only this server's own scripts and styles,
# no outside requests, never framed, never sniffed, no referrer.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
                               "img-src 'self'; connect-src 'self'; font-src 'self'; "
                               "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # study tokens are in URLs: never send them on
    "X-Frame-Options": "DENY",
}
# The study pages' (their links hold tokens: never cached either).
STUDY_HEADERS = {**SECURITY_HEADERS, "Cache-Control": "no-store"}

Mount = Blueprint | tuple[Blueprint, str]


def add_headers(target: Flask | Blueprint, headers: dict[str, str], *,
                force: bool = False) -> None:
    """Set ``headers`` on every response of an app or a blueprint; ``force``: over whatever a
    view set (an app's security headers), else only where a view set none."""

    def _headers(resp: Response) -> Response:
        for key, value in headers.items():
            if force:
                resp.headers[key] = value
            else:
                resp.headers.setdefault(key, value)
        return resp

    target.after_request(_headers)


def mount(app: Flask, blueprints: Iterable[Mount]) -> None:
    """Register blueprints, each as it is or, given as ``(blueprint, prefix)``, under a URL
    prefix (how both servers mount the studies)."""
    for bp in blueprints:
        if isinstance(bp, tuple):
            app.register_blueprint(bp[0], url_prefix=bp[1])
        else:
            app.register_blueprint(bp)


def setup_app(app: Flask, hosts: frozenset[str] | None = None) -> None:
    """What both servers do to a new Flask app before registering anything: bounded path
    numbers, the host, origin and body-size checks (:func:`install`) and the security headers
    on every response."""
    install_converters(app)
    install(app, hosts)
    add_headers(app, SECURITY_HEADERS, force=True)
