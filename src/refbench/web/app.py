"""The Flask application: pages for datasets, instances, comparisons, the leaderboard and the
TNE demo, all server-rendered from the same readers, runner outputs and store as the CLI.

``create_app`` takes ``extra_blueprints`` so that other parts of refbench (the human studies)
can mount their pages on the same app, with the same base template, CSS and security headers.

Security: Jinja2 autoescaping is on for every template (dataset text is only ever inserted as
escaped text), and every response carries a Content-Security-Policy that allows only this
server's own scripts and styles; there are no inline scripts or styles and no outside requests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, render_template, request
from jinja2 import ChoiceLoader, FileSystemLoader
from werkzeug.exceptions import HTTPException

from refbench.core.errors import RefbenchError
from refbench.web.catalog import Catalog, ServeConfig
from refbench.web.query import BadQuery

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; "
       "frame-ancestors 'none'")


def template_loader(own: Path) -> ChoiceLoader:
    """The app's templates, then each registered task's (``tasks/<name>/templates``, in
    registry order): a task's instance page is found by the name it gives
    (:attr:`refbench.tasks.base.Task.instance_template`) without the web layer knowing it."""
    from refbench.tasks.base import all_tasks

    folders = [own, *(d for t in all_tasks() if (d := t.template_dir()) is not None)]
    return ChoiceLoader([FileSystemLoader(str(f)) for f in folders])


def create_app(config: ServeConfig, *,
               extra_blueprints: Iterable[Blueprint | tuple[Blueprint, str]] = (),
               catalog: Catalog | None = None,
               enricher: Callable[[str], dict[str, Any]] | None = None) -> Flask:
    """The app over ``config``'s data, runs and store. ``extra_blueprints`` are mounted as they
    are, or under a URL prefix when given as ``(blueprint, prefix)``. ``enricher`` (text -> TNE
    payload) replaces the ``--tne-model`` enrichment (tests use a small stand-in)."""
    from refbench.web import views_board, views_browse, views_compare, views_demo
    from refbench.web.templating import install

    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.jinja_loader = template_loader(Path(app.root_path) / "templates")
    app.config["CATALOG"] = catalog or Catalog(config)
    app.config["TNE_MODEL"] = config.tne_model
    app.config["ENRICHER"] = enricher
    install(app)
    for bp in (views_browse.bp, views_compare.bp, views_board.bp, views_demo.bp):
        app.register_blueprint(bp)
    for extra in extra_blueprints:
        if isinstance(extra, tuple):
            app.register_blueprint(extra[0], url_prefix=extra[1])
        else:
            app.register_blueprint(extra)

    @app.after_request
    def headers(response: Any) -> Any:
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        return response

    @app.errorhandler(BadQuery)
    def bad_query(exc: BadQuery) -> tuple[str, int]:
        return _error(400, "Bad request", str(exc))

    @app.errorhandler(RefbenchError)
    def data_error(exc: RefbenchError) -> tuple[str, int]:
        return _error(500, "The data could not be read", exc.render())

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> tuple[str, int]:
        code = exc.code or 500
        return _error(code, exc.name, exc.description or "")

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> tuple[str, int]:
        app.logger.exception("unexpected error on %s", request.path)
        return _error(500, "Internal error", f"{type(exc).__name__} (details in the server "
                                             "log)")

    return app


def _error(code: int, title: str, message: str) -> tuple[str, int]:
    """An error page, or for an htmx request the same message as a fragment (so a malformed
    search typed into the search box shows its 400 in place of the results)."""
    template = "_error.html" if request.headers.get("HX-Request") else "error.html"
    return render_template(template, code=code, title=title, message=message), code
