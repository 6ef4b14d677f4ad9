"""The :class:`Result` the Python API returns: the typed result of :mod:`refbench.core.result`
(what a run or an evaluation scored, of which system, on which data, how much of it), with its
instances, for a notebook: ``figures["accuracy"]``, ``intervals``, ``to_pandas()`` (one row
per instance) and ``plot()`` (a matplotlib figure). pandas and matplotlib are imported only
when those are called."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, SupportsIndex, overload

from refbench.core.result import Figure
from refbench.core.result import Result as TypedResult
from refbench.core.types import ChoiceInstance
from refbench.tasks.base import Task


class Figures(tuple[Figure, ...]):
    """A result's figures: a tuple of :class:`~refbench.core.result.Figure`, that a figure's
    name also indexes (``figures["accuracy"]`` is its value, a fraction)."""

    @overload
    def __getitem__(self, key: SupportsIndex) -> Figure: ...
    @overload
    def __getitem__(self, key: slice) -> tuple[Figure, ...]: ...
    @overload
    def __getitem__(self, key: str) -> float | None: ...

    def __getitem__(self, key: SupportsIndex | slice | str) -> Any:
        if isinstance(key, str):
            for f in self:
                if f.name == key:
                    return f.value
            raise KeyError(f"{key!r}: no such figure (the figures: {', '.join(self.keys())})")
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            return key in self.keys()
        return super().__contains__(key)

    def keys(self) -> list[str]:
        return [f.name for f in self]

    def get(self, key: str, default: float | None = None) -> float | None:
        try:
            return self[key]
        except KeyError:
            return default

    def as_dict(self) -> dict[str, float | None]:
        return {f.name: f.value for f in self}


@dataclass(frozen=True)
class Result(TypedResult):
    """A scored result (:class:`refbench.core.result.Result`) and its instances.

    ``figures["accuracy"]``: a figure by name; ``intervals``: each figure's 95% interval;
    ``coverage``: n of N; ``system``, ``data``: what it is of; ``rows``: one mapping per
    instance (id, gold, answer, per-candidate scores, correct, slice keys), ``to_pandas()``
    as a DataFrame; ``plot()``: the figures with their intervals as a matplotlib figure;
    ``out_dir``: the run folder (None when the run kept no files)."""

    rows: tuple[Mapping[str, Any], ...] = ()
    out_dir: str | None = None

    @classmethod
    def of(cls, typed: TypedResult, *, rows: Sequence[Mapping[str, Any]] = (),
           out_dir: str | Path | None = None) -> Result:
        values = {f.name: getattr(typed, f.name) for f in fields(TypedResult)}
        values["figures"] = Figures(typed.figures)
        return cls(**values, rows=tuple(rows),
                   out_dir=None if out_dir is None else str(out_dir))

    @property
    def intervals(self) -> dict[str, tuple[float, float]]:
        """Each figure's 95% interval (figures without one are left out)."""
        return {f.name: f.interval for f in self.figures if f.interval is not None}

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={f.value:.3f}" for f in self.figures[:3]
                          if isinstance(f.value, float))
        return f"<Result {self.task}: {self.label()}; {shown}>"

    def to_pandas(self) -> Any:
        """One row per instance: ``id``, ``gold``, ``answer``, ``scores`` (one per candidate)
        and ``score_0``, ``score_1``, ... , ``correct`` (None without gold) and the task's
        slice keys."""
        from refbench.public.dataset import pandas

        return pandas().DataFrame([dict(r) for r in self.rows])

    def plot(self, *, title: str | None = None) -> Any:
        """The figures (fractions) with their 95% intervals, as a matplotlib figure: one bar
        per figure, as thick for one figure as for twenty."""
        from refbench.public.display import bar_figure

        shown = [f for f in self.figures if isinstance(f.value, float) and 0 <= f.value <= 1]
        return bar_figure([f.name for f in shown], [float(f.value or 0.0) for f in shown],
                          [f.interval for f in shown], title=title or self.label(),
                          xlabel="fraction (95% interval)", xlim=(0.0, 1.0))

    def _repr_html_(self) -> str:
        """A notebook's view: what it is of (system, data, n of N, a partial mark) and each
        figure with its interval."""
        from html import escape

        from refbench.public.display import html_table, interval_text

        partial = " <b style='color:#a33'>partial</b>" if self.is_partial else ""
        caption = (f"<b>{escape(self.system.name)}</b> on <b>{escape(self.data.name)}</b>"
                   f"{escape(f', {self.data.split} split' if self.data.split else '')} "
                   f"({escape(self.task)}): {escape(self.coverage.text())}{partial}")
        rows = [(f.name, f.value, interval_text(f.interval)) for f in self.figures]
        return html_table(("figure", "value", "95% interval"), rows, caption=caption)


def instance_rows(task: Task, instances: Sequence[ChoiceInstance],
                  answers: Sequence[int | None],
                  scores: Sequence[Sequence[float]] | None = None) -> list[dict[str, Any]]:
    """The per-instance rows of a result."""
    rows = []
    for k, (inst, answer) in enumerate(zip(instances, answers, strict=True)):
        row: dict[str, Any] = {"id": inst.id, "gold": inst.gold, "answer": answer}
        if scores is not None:
            row["scores"] = list(scores[k])
            row.update({f"score_{j}": s for j, s in enumerate(scores[k])})
        row["correct"] = None if inst.gold is None else answer == inst.gold
        row.update(task.slices(inst))
        rows.append(row)
    return rows
