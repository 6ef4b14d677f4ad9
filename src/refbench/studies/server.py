"""``refbench study serve``: the study blueprint in a minimal Flask app of its own, served by
waitress (a multi-threaded pure-Python WSGI server) on the loopback interface by default.

``refbench serve --study`` can mount the same blueprint in the full app instead; nothing here is
needed for that.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from pathlib import Path

from flask import Flask, Response, render_template
from werkzeug.exceptions import HTTPException

from refbench.core.errors import UsageError
from refbench.studies.db import StudyStore
from refbench.studies.web import SECURITY_HEADERS, make_study_blueprint


def create_app(study: str | Path) -> Flask:
    app = Flask(__name__, static_folder=None)  # static files come from the blueprint
    app.register_blueprint(make_study_blueprint(study))

    @app.after_request
    def _headers(resp: Response) -> Response:
        for key, value in SECURITY_HEADERS.items():
            resp.headers.setdefault(key, value)
        return resp

    @app.errorhandler(HTTPException)
    def _error(exc: HTTPException) -> tuple[str, int]:
        return render_template("study/error.html", code=exc.code,
                               message="No such page." if exc.code == 404 else exc.description
                               ), exc.code or 500

    @app.get("/")
    def index() -> str:
        return render_template("study/error.html", code="refbench study",
                               message="Open the link you were given (it holds your token).")

    return app


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def links(study: str | Path, base: str) -> list[tuple[str, str]]:
    """(name, URL) for every annotator, then the admin."""
    with StudyStore(study) as st:
        people = st.annotators(role=None)
    return [(a.name, f"{base}/{'admin' if a.role == 'admin' else 'a'}/{a.token}/")
            for a in sorted(people, key=lambda a: (a.role == "admin", a.id))]


def serve(study: str | Path, *, host: str = "127.0.0.1", port: int = 8000, threads: int = 8,
          on_ready: Callable[[str], None] | None = None) -> None:
    """Serve until interrupted; ``on_ready`` gets the base URL once the socket is bound."""
    from waitress import create_server

    app = create_app(study)
    try:
        server = create_server(app, host=host, port=port, threads=threads,
                               clear_untrusted_proxy_headers=True)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); try "
                         "another --port") from None
    bound = getattr(server, "effective_port", port)
    shown = f"[{host}]" if ":" in host else host
    if on_ready is not None:
        on_ready(f"http://{shown}:{bound}")
    try:
        server.run()
    finally:
        server.close()
