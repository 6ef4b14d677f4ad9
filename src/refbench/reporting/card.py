"""The model card: how several systems do across several benchmarks, one table with a row per
system and a column group per benchmark, each cell the benchmark's headline figures (its task
declares them: :attr:`refbench.tasks.base.Task.headline`) with their 95% intervals, each by
its one named method, and n of N.

It is built from :class:`~refbench.core.result.Result` objects only (from run folders, the
results store, or a producer in memory; :mod:`refbench.reporting.card_inputs`), by the rules
written once in :mod:`refbench.core.result`:

- a **benchmark** is the data a result is of, never its task: a data file by its content and
  split, a folder a task takes whole (a WinoBias release, a KITMUS suite) by the folder and
  split, so the official KITMUS release and a generated suite are two benchmarks;
- a **system** is its model spec and fingerprint; two systems sharing a display name are named
  apart (:func:`~refbench.core.result.names_apart`), never merged;
- **duplicates** (one system run twice on the same data file) collapse to the latest complete
  run, and the table's notes say how many were left out;
- a **partial** cell (``--limit``, a shard, a folder run on some of its files) is marked and
  kept out of what compares systems (KITMUS' mean over common cells).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refbench.core.result import Result, names_apart
from refbench.reporting.card_render import RECORD_KEYS
from refbench.tasks.files import SPLIT_WORDS
from refbench.tasks.headline import METHODS, HeadlineFigure
from refbench.tasks.lookup import find_task

__all__ = ["Benchmark", "Cell", "Entry", "ModelCard", "benchmark_of", "build_card"]



@dataclass(frozen=True)
class Entry:
    """A result and where it came from: its run folder (``source``) or store run id."""

    result: Result
    source: str | None = None
    run_id: int | None = None


@dataclass(frozen=True)
class Benchmark:
    """What a column group is of: ``key`` identifies the data (content or folder, and split),
    ``name`` labels it, ``folder`` says whether it is a folder taken whole."""

    key: tuple[str, ...]
    task: str
    name: str
    folder: bool = False


@dataclass
class Cell:
    """One system on one benchmark: its headline figures, whether any is partial, the runs it
    is made of, and (``--against``) the paired test's Holm-adjusted p."""

    system: str
    benchmark: Benchmark
    figures: list[HeadlineFigure]
    entries: list[Entry]
    p_adjusted: float | None = None

    @property
    def partial(self) -> bool:
        return any(f.partial for f in self.figures)

    @property
    def significant(self) -> bool:
        return self.p_adjusted is not None and self.p_adjusted < 0.05


@dataclass
class ModelCard:
    """Systems x benchmarks (:func:`build_card`); ``refbench.card(...)`` returns one."""

    systems: list[str]
    benchmarks: list[Benchmark]
    cells: dict[tuple[str, str], Cell]
    notes: list[str] = field(default_factory=list)
    against: str | None = None

    def cell(self, system: str, benchmark: str) -> Cell | None:
        return self.cells.get((system, benchmark))

    def metrics(self, benchmark: Benchmark) -> list[tuple[str, str]]:
        """(metric, label) of a benchmark's columns, in the order its cells give them; a
        figure no system has (KnowRef's consistency without a switched run) is left out."""
        seen: dict[str, str] = {}
        valued: set[str] = set()
        for s in self.systems:
            c = self.cells.get((s, benchmark.name))
            for f in c.figures if c else ():
                seen.setdefault(f.metric, f.label)
                if f.value is not None:
                    valued.add(f.metric)
        return [(m, label) for m, label in seen.items() if m in valued]

    def records(self) -> list[dict[str, Any]]:
        """One record per system x benchmark x metric (``--json``; the web page's JSON)."""
        out = []
        for b in self.benchmarks:
            shown = {m for m, _ in self.metrics(b)}
            for s in self.systems:
                c = self.cells.get((s, b.name))
                for f in c.figures if c else ():
                    if f.metric not in shown:
                        continue
                    rec = {"system": s, "benchmark": b.name, **f.record(), "task": b.task}
                    if self.against is not None:
                        rec["p_holm"] = c.p_adjusted if c else None
                    out.append(rec)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"systems": self.systems, "benchmarks": [b.name for b in self.benchmarks],
                "records": self.records(), "notes": self.notes, "against": self.against}

    def to_pandas(self, wide: bool = False) -> Any:
        """Long: the records; wide: a row per system, a column per (benchmark, metric) (a
        pandas DataFrame; pandas is imported when asked for)."""
        import importlib

        pd = importlib.import_module("pandas")

        long = pd.DataFrame(self.records(), columns=[*RECORD_KEYS, "method", "task"])
        if not wide:
            return long
        table = long.pivot_table(index="system", columns=["benchmark", "metric"],
                                 values="value", aggfunc="first", sort=False)
        return table.reindex(self.systems)

    def render(self, fmt: str = "md", *, standalone: bool = False) -> str:
        from refbench.reporting.card_render import render_card

        return render_card(self, fmt, standalone=standalone)

    def plot(self, out: str | Path | None = None) -> Any:
        """One panel per benchmark, systems as points with their intervals, chance as a
        line; written to ``out`` (PNG) when given; returns the matplotlib figure."""
        from refbench.reporting.card_plot import plot_card

        return plot_card(self, out)

    def _repr_html_(self) -> str:
        from refbench.reporting.card_render import card_html_table

        return card_html_table(self)

    def __str__(self) -> str:
        return self.render("md")


def _folder_of(task_name: str, r: Result) -> Path | None:
    task = find_task(task_name)
    if task is None or task.folder is None or not r.data.path:
        return None
    try:
        return task.folder.folder_of(Path(r.data.path))
    except OSError:
        return None


def benchmark_of(r: Result) -> Benchmark:
    """The benchmark a result is of (see the module's rules)."""
    split = r.data.split or "-"
    folder = _folder_of(r.task, r)
    # read with reader options (a KITMUS ablation): other data, its own column
    options = r.data.options or ""
    read = f" [{options}]" if options else ""
    if folder is not None:
        name = r.task if folder.name == r.task else f"{r.task}:{folder.name}"
        return Benchmark(("folder", r.task, str(folder), split, options), r.task,
                         (name if split in ("test", "-") else f"{name} ({split})") + read, True)
    path = Path(r.data.path or r.task) if options or not r.data.name else Path(r.data.name)
    stem = path.name.split(".")[0] or r.task
    if stem in SPLIT_WORDS and path.parent.name:  # books/test, not a bare "test"
        stem = f"{path.parent.name}/{stem}"
    return Benchmark(("file", r.task, r.data.sha256 or r.data.path or "", split, options),
                     r.task, stem + read)


def _entries(items: Iterable[Entry | Result]) -> list[Entry]:
    return [i if isinstance(i, Entry) else Entry(i) for i in items]


def _newest(entries: Sequence[Entry]) -> Entry:
    """The latest complete run of duplicates (else the latest)."""
    return max(entries, key=lambda e: (not e.result.is_partial,
                                       e.result.provenance.created or "", e.run_id or -1))


def _distinct_names(benches: list[Benchmark]) -> list[Benchmark]:
    from dataclasses import replace

    count: dict[str, int] = {}
    for b in benches:
        count[b.name] = count.get(b.name, 0) + 1
    return [replace(b, name=f"{b.name} [{b.key[2][:6] if not b.folder else b.key[2]}]")
            if count[b.name] > 1 else b for b in benches]


def build_card(items: Iterable[Entry | Result], *, notes: Sequence[str] = ()) -> ModelCard:
    """The model card of ``items`` (Results, or :class:`Entry` with where each came from)."""
    entries = _entries(items)
    systems_seen = list({e.result.system.key: e.result.system for e in entries}.values())
    labels = dict(zip((s.key for s in systems_seen), names_apart(systems_seen), strict=True))
    raw = list(dict.fromkeys(benchmark_of(e.result) for e in entries))
    benches = dict(zip(raw, _distinct_names(raw), strict=True))
    # (system, benchmark, data file) -> its runs; duplicates collapse to the newest
    runs: dict[tuple[str, Benchmark, tuple[Any, ...]], list[Entry]] = {}
    for e in entries:
        r = e.result
        file_key = (r.data.sha256 or r.data.path, r.data.split, r.data.options)
        runs.setdefault((labels[r.system.key], benches[benchmark_of(r)], file_key),
                        []).append(e)
    dropped = sum(len(v) - 1 for v in runs.values())
    chosen: dict[tuple[str, Benchmark], list[Entry]] = {}
    for (system, bench, _), group in runs.items():
        chosen.setdefault((system, bench), []).append(_newest(group))
    cells: dict[tuple[str, str], Cell] = {}
    for (system, bench), group in chosen.items():
        task = find_task(bench.task)
        figures = task.headline_figures([e.result for e in group]) if task is not None else []
        cells[(system, bench.name)] = Cell(system, bench, figures, group)
    ordered = sorted(benches.values(), key=lambda b: b.name)  # the same from folders or store
    for bench in ordered:
        task = find_task(bench.task)
        if task is None:
            continue
        mine = {s: c.figures for (s, b), c in cells.items() if b == bench.name}
        for system, extra in task.headline_summary(mine).items():
            cells[(system, bench.name)].figures.append(extra)
    all_notes = list(notes)
    if dropped:
        all_notes.append(f"{dropped} duplicate run{'s' if dropped != 1 else ''} of a system "
                         "on the same data left out: each cell is the latest complete run")
    if any(c.partial for c in cells.values()):
        all_notes.append("partial: a cell over part of its data (n of N); never ranked or "
                         "averaged with complete cells")
    used = sorted({f.method for c in cells.values() for f in c.figures if f.value is not None})
    all_notes.append("95% intervals: " + "; ".join(f"{m}: {METHODS.get(m, m)}" for m in used))
    systems = sorted({c.system for c in cells.values()})
    return ModelCard(systems=systems, benchmarks=ordered, cells=cells, notes=all_notes)
