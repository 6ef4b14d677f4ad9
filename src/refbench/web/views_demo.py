"""The tasks' demo pages (their demo capability): each is mounted at ``/<route>``, rendered
with the task's own template from :meth:`~refbench.tasks.capabilities.Demo.context`, with the
model folder given to ``refbench serve`` (``--<model_option>``) or a test's stand-in."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template, request

from refbench.core.errors import UsageError
from refbench.tasks.capabilities import Demo
from refbench.tasks.lookup import tasks_with
from refbench.web.query import BadQuery


def demos() -> list[tuple[str, Demo]]:
    """(task name, demo) of every task with a demo page, in registry order."""
    return [(t.name, t.demo) for t in tasks_with("demo") if t.demo is not None]


def blueprint() -> Blueprint:
    """One page per demo, all under the endpoint ``demo.page`` (``route`` tells them apart)."""
    bp = Blueprint("demo", __name__)
    for _, demo in demos():
        bp.add_url_rule(f"/{demo.route}", "page", page, defaults={"route": demo.route})
    return bp


def page(route: str) -> str:
    name, demo = next((n, d) for n, d in demos() if d.route == route)
    models = current_app.config.get("DEMO_MODELS") or {}
    enrichers = current_app.config.get("ENRICHERS") or {}
    try:
        context = demo.context(request.args, model=models.get(name),
                               enricher=enrichers.get(name))
    except UsageError as exc:
        raise BadQuery(exc.message) from None
    return render_template(demo.template, **context)
