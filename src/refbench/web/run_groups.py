"""The home page's runs, grouped by dataset (a KITMUS suite is one dataset of 24 subtask files)
and by system within it, with a text filter: a store of many runs reads as a few groups instead
of a flat list of every run."""

from __future__ import annotations

from dataclasses import dataclass, field

from refbench.web.catalog import Catalog
from refbench.web.datasets import Dataset
from refbench.web.runs import RunInfo, System


@dataclass
class SystemRuns:
    label: str
    model: str
    runs: list[RunInfo]

    @property
    def latest(self) -> str:
        return max((r.created for r in self.runs), default="")


@dataclass
class RunGroup:
    ds: Dataset | None  # None: runs whose dataset is not served
    task: str
    systems: list[SystemRuns] = field(default_factory=list)

    @property
    def n_runs(self) -> int:
        return sum(len(s.runs) for s in self.systems)

    def name(self, run: RunInfo) -> str:
        """The run's file as the group shows it: its path inside a suite folder
        (``background-train/subtask_2_ents/test.jsonl``), else its file name."""
        path = run.data or run.predictions
        if self.ds is not None and self.ds.is_folder and run.data is not None:
            try:
                return str(run.data.resolve().relative_to(self.ds.path.resolve()))
            except ValueError:
                pass
        return path.name


def _matches(words: list[str], run: RunInfo, ds: Dataset | None, label: str) -> bool:
    hay = " ".join([run.rid, run.model, run.task, label, str(run.data or run.predictions),
                    ds.label if ds else ""]).lower()
    return all(w in hay for w in words)


def group_runs(cat: Catalog, runs: list[RunInfo], text: str = "") -> list[RunGroup]:
    """Runs by dataset, then by system (latest run first within each); only the runs whose id,
    model, task, system, data path or dataset name hold every word of ``text``."""
    words = text.lower().split()
    groups: dict[str, RunGroup] = {}
    for ds in cat.datasets.values():
        systems: list[System] = cat.systems(ds)
        for s in systems:
            chosen = [r for r in s.runs if r in runs and _matches(words, r, ds, s.label)]
            if chosen:
                group = groups.setdefault(ds.key, RunGroup(ds=ds, task=ds.task.name))
                group.systems.append(SystemRuns(label=s.label, model=s.model, runs=sorted(
                    chosen, key=lambda r: (r.created, r.rid), reverse=True)))
    placed = {r.rid for g in groups.values() for s in g.systems for r in s.runs}
    for r in runs:
        if r.rid in placed or cat.dataset_of(r) is not None or not _matches(words, r, None, ""):
            continue
        group = groups.setdefault(f"none:{r.task}", RunGroup(ds=None, task=r.task))
        found = next((s for s in group.systems if s.model == r.model), None)
        if found is None:
            group.systems.append(SystemRuns(label=r.model, model=r.model, runs=[r]))
        else:
            found.runs.append(r)
    out = sorted(groups.values(), key=lambda g: (g.ds is None, g.task,
                                                 g.ds.label if g.ds else ""))
    for g in out:
        g.systems.sort(key=lambda s: s.label)
    return out
