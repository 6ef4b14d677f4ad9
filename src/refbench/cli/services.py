"""What the command line lends the task folders' commands (the
:class:`~refbench.tasks.capabilities.CommandServices` they are built with): run folders, the
results store and table rendering, which sit above the tasks and are never imported by them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


class CliServices:
    def run_metrics(self, paths: Sequence[Path]) -> list[tuple[Path, dict[str, Any]]]:
        from refbench.runs.record import run_folders

        return list(run_folders(list(paths)))

    def stored_metrics(self, store: Path | None, task: str) -> list[dict[str, Any]]:
        from refbench.core.seal import check_record
        from refbench.runs.store import Store

        out = []
        with Store(store, readonly=True) as st:
            for row in st.runs(limit=10_000, task=task):
                metrics = st.get(row["run_id"])["metrics"]
                # as report --from-store: an edited record is refused, never tabulated
                check_record(metrics, path=f"{st.path}: run {row['run_id']}")
                out.append(metrics)
        return out

    def record_run(self, metrics: dict[str, Any], out: Path, *, store: Path | None,
                   no_store: bool = False) -> dict[str, Any]:
        import click

        from refbench.core.result import Coverage
        from refbench.runs.record import as_result, save_run
        from refbench.runs.store import Store

        n = int(metrics["n"])
        result = as_result(metrics, Coverage(n, n))
        if no_store:
            return save_run(result, out, None)
        with Store(store) as st:
            click.echo(st.describe(), err=True)
            for note in st.notes:
                click.echo(note, err=True)
            return {**save_run(result, out, st), "store": str(st.path)}

    def render_table(self, header: list[str], rows: list[list[str]], fmt: str, *,
                     title: str = "") -> str:
        from refbench.reporting.tables import render

        return render(header, rows, fmt, title=title)
