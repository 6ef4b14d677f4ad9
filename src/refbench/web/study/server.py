"""``refbench study serve``: the study blueprint in a minimal Flask app of its own, served by
waitress (a multi-threaded pure-Python WSGI server) on the loopback interface by default.

``refbench serve --study`` can mount the same blueprint in the full app instead; nothing here is
needed for that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from flask import Flask, render_template, request
from werkzeug.exceptions import HTTPException

from refbench.core.errors import UsageError
from refbench.studyfile.db import StudyStore
from refbench.web import guard
from refbench.web.guard import is_loopback
from refbench.web.study.blueprint import make_study_blueprint

__all__ = ["create_app", "is_loopback", "links", "serve", "studies_app"]


def create_app(study: str | Path, *, hosts: frozenset[str] | None = None) -> Flask:
    """The study's pages in an app of their own, answering to ``hosts`` (default: loopback)."""
    return studies_app([make_study_blueprint(study)], hosts=hosts)


def studies_app(blueprints: Iterable[guard.Mount], *,
                hosts: frozenset[str] | None = None) -> Flask:
    """A minimal app mounting study blueprints (each as it is, or under a URL prefix), with the
    same host, origin and body-size checks as the data app (:mod:`refbench.web.guard`); also
    what ``refbench serve --study`` serves on a non-loopback host without ``--expose-data``."""
    app = Flask(__name__, static_folder=None)  # static files come from the blueprint
    guard.setup_app(app, hosts)
    guard.add_headers(app, guard.STUDY_HEADERS)  # no page of this app is cached
    guard.mount(app, blueprints)

    @app.errorhandler(HTTPException)
    def _error(exc: HTTPException) -> tuple[str, int]:
        return render_template("study/error.html", code=exc.code,
                               message="No such page." if exc.code == 404 else exc.description
                               ), exc.code or 500

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> tuple[str, int]:
        app.logger.exception("unexpected error on %s", guard.redact(request.path))
        return render_template("study/error.html", code=500,
                               message="Internal error (details in the server log)."), 500

    @app.get("/")
    def index() -> str:
        return render_template("study/error.html", code="refbench study",
                               message="Open the link you were given (it holds your token).")

    return app


def links(study: str | Path, base: str) -> list[tuple[str, str]]:
    """(name, URL) for every annotator, then the admin."""
    with StudyStore(study) as st:
        people = st.annotators(role=None)
    return [(a.name, f"{base}/{'admin' if a.role == 'admin' else 'a'}/{a.token}/")
            for a in sorted(people, key=lambda a: (a.role == "admin", a.id))]


def serve(study: str | Path, *, host: str = "127.0.0.1", port: int = 8000, threads: int = 8,
          trusted_hosts: Iterable[str] = (),
          on_ready: Callable[[str], None] | None = None) -> None:
    """Serve until interrupted; ``on_ready`` gets the base URL once the socket is bound. The
    app answers to loopback names, ``host`` and ``trusted_hosts`` (names a proxy forwards)."""
    from waitress import create_server

    app = create_app(study, hosts=guard.allowed_hosts(host, trusted_hosts))
    try:
        server: Any = create_server(app, host=host, port=port, threads=threads,
                                    clear_untrusted_proxy_headers=True,
                                    max_request_body_size=guard.MAX_BODY)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); try "
                         "another --port") from None
    bound = getattr(server, "effective_port", port)
    shown = guard.url_host(host, trusted_hosts)
    if on_ready is not None:
        on_ready(f"http://{shown}:{bound}")
    try:
        server.run()
    finally:
        server.close()
