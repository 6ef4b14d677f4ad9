"""Template settings and helpers: autoescaping everywhere, number formats, and links that keep
the current view's query (search, filters, systems) while changing one thing."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from flask import Flask, request
from jinja2 import ChoiceLoader, FileSystemLoader

from refbench.tasks.page import ENTITY_COLOURS, chain_class


def task_template_dirs() -> list[Path]:
    """Every registered task's templates (``tasks/<name>/templates``, registry order): its
    instance page, demo and study pages are found by the names the task gives them, without the
    web layer knowing any of them."""
    from refbench.tasks.lookup import all_tasks

    return [d for t in all_tasks() if (d := t.home() / "templates").is_dir()]


def template_loader(*own: Path) -> ChoiceLoader:
    """``own`` folders first, then every task's."""
    return ChoiceLoader([FileSystemLoader(str(f)) for f in (*own, *task_template_dirs())])


def with_task_templates(app: Any) -> None:
    """Let ``app`` (any host app a study blueprint is mounted on) find the tasks' templates
    after its own: the study types' pages live in their tasks' folders."""
    if app.extensions.get("refbench_task_templates"):
        return
    own = app.jinja_loader
    tasks = [FileSystemLoader(str(d)) for d in task_template_dirs()]
    app.jinja_loader = ChoiceLoader([own, *tasks] if own is not None else tasks)
    app.extensions["refbench_task_templates"] = True


def with_args(**changes: Any) -> str:
    """The current URL's query string with some parameters replaced (None drops one; a list
    sets a repeated parameter)."""
    items: list[tuple[str, str]] = []
    for key in request.args:
        if key in changes:
            continue
        items.extend((key, v) for v in request.args.getlist(key))
    for key, value in changes.items():
        if value is None:
            continue
        if isinstance(value, list | tuple):
            items.extend((key, str(v)) for v in value)
        else:
            items.append((key, str(value)))
    return "?" + urlencode(items) if items else "?"


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def pvalue(p: float | None) -> str:
    if p is None:
        return "–"
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def bootstrap_pvalue(p: float | None, resamples: int) -> str:
    """A bootstrap p-value as far as its resamples resolve it: with B resamples the smallest
    two-sided p the (k + 1) / (B + 1) count can give is 2 / (B + 1), so a p at that floor reads
    "< 2/B" (1,000 resamples: "< 0.002"), never a spuriously exact "0.0020"."""
    if p is None:
        return "–"
    if resamples > 0 and p <= 2 / (resamples + 1) * (1 + 1e-9):
        return f"< {2 / resamples:.10g}"
    return pvalue(p)


def install(app: Flask) -> None:
    app.jinja_env.autoescape = True  # every template, whatever its file name
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
    app.jinja_env.globals.update(with_args=with_args, ENTITY_COLOURS=ENTITY_COLOURS,
                                 chain_class=chain_class)
    from refbench.web.query import stemmed_forms
    from refbench.web.verdicts import system_unverified, unverified

    # a record not verified (core/seal.py: written before seals) is marked where its figures
    # are shown
    app.jinja_env.globals.update(unverified=unverified, system_unverified=system_unverified)

    app.jinja_env.filters.update(fmt=fmt, pvalue=pvalue,
                                 bootstrap_pvalue=bootstrap_pvalue, stemmed_forms=stemmed_forms)
