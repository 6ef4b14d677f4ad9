"""``refbench.card`` and ``refbench.report``: the model card (systems x benchmarks, each
benchmark's headline figures with their intervals and n of N) from Results, run folders or
result files, and the tables ``refbench report`` prints. Errors are raised
(``RefbenchError``), never printed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.result import Result as TypedResult
from refbench.reporting.card import ModelCard

FORMATS = {"markdown": "md", "md": "md", "latex": "latex", "html": "html", "csv": "csv"}


def _items(results: Any) -> list[Any]:
    return [results] if isinstance(results, TypedResult | str | Path) else list(results)


def card(results: Any, *, against: str | None = None) -> ModelCard:
    """The model card of ``results`` (Results, or the run folders and result files
    ``refbench report`` takes, a several-benchmark run's folder included): a row per system,
    a column group per benchmark. ``against``: mark the cells whose paired test against that
    system is significant after Holm's correction over the table. ``.to_pandas(wide=...)``,
    ``.plot()``, ``.render(fmt)``; shown as a table in a notebook."""
    from refbench.public.checks import results_args
    from refbench.reporting.card_inputs import make_card

    results_args("card", results)
    return make_card(_items(results), against=against)


def report(results: Any, format: str = "markdown", *, ci: bool = True,
           metric: str | None = None, as_card: bool | None = None) -> str:
    """The table ``refbench report`` makes of ``results`` (Results, run folders or result
    files, or a several-benchmark run's folder): ``format`` is ``"markdown"``, ``"latex"``,
    ``"html"`` or ``"csv"``. ``as_card``: the model card (default: for folders of several runs,
    such as a several-benchmark run's, as ``refbench report`` does); else each task's own
    layout."""
    from refbench.public.checks import report_args
    from refbench.reporting.card_inputs import needs_card
    from refbench.reporting.reporting import build_tables
    from refbench.reporting.results import load_results

    report_args(results, format, metric)
    fmt = FORMATS.get(format)
    if fmt is None:
        raise UsageError(f"format={format!r}: choose markdown, latex, html or csv")
    items = _items(results)
    paths = [Path(r) for r in items if isinstance(r, str | Path)]
    if as_card or (as_card is None and needs_card(paths)):
        return card(items).render(fmt)
    data: list[dict[str, Any]] = []
    if paths and len(paths) == len(items):  # together: names told apart as report's
        data = load_results(paths)
    for r in items if not data else ():
        if isinstance(r, TypedResult):
            data.append(r.to_json() | {"_path": r.data.path})
        else:
            data.extend(load_results([r]))
    if not data:
        raise UsageError("no results to report")
    return build_tables(data, fmt=fmt, metric=metric, ci=ci)
