"""The Flask application: pages for datasets, instances, comparisons, the leaderboard and the
tasks' demos, all server-rendered from the same readers, runner outputs and store as the CLI.

``create_app`` takes ``extra_blueprints`` so that other parts of refbench (the human studies)
can mount their pages on the same app, with the same base template, CSS and security headers
(:func:`refbench.web.guard.setup_app`, which the studies' own server calls too).

Security: Jinja2 autoescaping is on for every template (dataset text is only ever inserted as
escaped text), and every response carries a Content-Security-Policy that allows only this
server's own scripts and styles; there are no inline scripts or styles and no outside requests.
Host names, cross-origin writes, body sizes and path numbers are checked by
:mod:`refbench.web.guard`; a search that runs past its time budget is a 400
(:mod:`refbench.web.query`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from flask import Flask, render_template, request
from werkzeug.exceptions import HTTPException

from refbench.core.errors import RefbenchError
from refbench.tasks.base import Task
from refbench.tasks.capabilities import PLAIN, Enricher
from refbench.web import guard, warm
from refbench.web.catalog import Catalog, ServeConfig
from refbench.web.query import BadQuery, budget_exceeded


def create_app(config: ServeConfig, *,
               extra_blueprints: Iterable[guard.Mount] = (),
               catalog: Catalog | None = None,
               enrichers: dict[str, Enricher] | None = None,
               hosts: frozenset[str] | None = None) -> Flask:
    """The app over ``config``'s data, runs and store. ``extra_blueprints`` are mounted as they
    are, or under a URL prefix when given as ``(blueprint, prefix)``. ``enrichers`` (task name
    -> text -> payload) replace a demo's model (tests use a small stand-in). ``hosts``: the Host
    names answered (default: loopback names only; see :func:`guard.allowed_hosts`)."""
    from refbench.web import (
        views_board,
        views_browse,
        views_card,
        views_charts,
        views_compare,
        views_demo,
    )
    from refbench.web.templating import install, template_loader

    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.jinja_loader = template_loader(Path(app.root_path) / "templates")
    app.extensions["refbench_task_templates"] = True  # the study blueprints need no more
    guard.setup_app(app, hosts)
    app.config["CATALOG"] = catalog or Catalog(config)
    app.config["DEMO_MODELS"] = dict(config.demo_models)
    app.config["ENRICHERS"] = dict(enrichers or {})
    install(app)
    warm.install(app)  # "indexing, N%" while the background indexer runs
    app.jinja_env.globals["search_fields"] = _search_fields
    app.jinja_env.globals["demos"] = [d for _, d in views_demo.demos()]
    for bp in (views_browse.bp, views_compare.bp, views_board.bp, views_card.bp,
               views_charts.bp, views_demo.blueprint()):
        app.register_blueprint(bp)
    guard.mount(app, extra_blueprints)

    @app.errorhandler(BadQuery)
    def bad_query(exc: BadQuery) -> Any:
        if request.endpoint == "browse.dataset" and request.args.get("q") \
                and not request.headers.get("HX-Request"):
            return _listing_without_search(app, str(exc))
        return _error(400, "Bad request", str(exc))

    @app.errorhandler(OverflowError)
    def overflow(exc: OverflowError) -> Any:
        return _error(400, "Bad request", "A number in the request is too large.")

    @app.errorhandler(sqlite3.OperationalError)
    def sqlite_error(exc: sqlite3.OperationalError) -> Any:
        if budget_exceeded(exc):  # the search's time budget ran out outside the list queries
            return _error(400, "Bad request", str(BadQuery.too_slow()))
        return unexpected(exc)

    @app.errorhandler(RefbenchError)
    def data_error(exc: RefbenchError) -> Any:
        return _error(500, "The data could not be read", exc.render())

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        code = exc.code or 500
        return _error(code, exc.name, exc.description or "")

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> Any:
        app.logger.exception("unexpected error on %s", guard.redact(request.path))
        return _error(500, "Internal error", f"{type(exc).__name__} (details in the server "
                                             "log)")

    return app


def _listing_without_search(app: Flask, message: str) -> Any:
    """A dataset page whose search failed, as a full page: the listing under every other
    filter, with the search text kept in its box and the message above the results (a 400)."""
    from flask import g
    from werkzeug.datastructures import ImmutableMultiDict

    g.search_error, g.search_text = message, request.args.get("q", "")
    request.args = ImmutableMultiDict(
        [(k, v) for k, v in request.args.items(multi=True) if k not in ("q", "after", "before")])
    try:
        body = app.view_functions["browse.dataset"](**(request.view_args or {}))
    except BadQuery as exc:  # something besides the search is wrong too
        return _error(400, "Bad request", str(exc))
    return body, 400


def _search_fields(task: Task) -> list[tuple[str, str]]:
    """(name, label) of the texts the search form can be limited to (none: one text)."""
    return list((task.web or PLAIN).text_fields)


def _error(code: int, title: str, message: str) -> Any:
    """An error page, or for an htmx request the same message as a fragment (so a malformed
    search typed into the search box shows its 400 in place of the results)."""
    if not request.headers.get("HX-Request"):
        return render_template("error.html", code=code, title=title, message=message), code
    if request.headers.get("HX-Target") == "listing":
        # A live search that fails keeps the filters: the message replaces only the results.
        return render_template("_error.html", code=code, title=title, message=message,
                               inline=True), code, {"HX-Retarget": "#results",
                                                    "HX-Reswap": "innerHTML"}
    return render_template("_error.html", code=code, title=title, message=message), code
