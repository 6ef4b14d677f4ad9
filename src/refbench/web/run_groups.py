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
            # the suite's file holding what it read (a run on a copy is a run on that file)
            own = self.ds.own_file(run.data, run.data_sha256) or run.data
            try:
                return str(own.resolve().relative_to(self.ds.path.resolve()))
            except ValueError:
                pass
        return path.name


def _matches(words: list[str], run: RunInfo, ds: Dataset | None, label: str) -> bool:
    hay = " ".join([run.rid, run.model, run.name, run.task, label,
                    str(run.data or run.predictions),
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
        found = next((s for s in group.systems if s.label == r.name and s.model == r.model), None)
        if found is None:
            group.systems.append(SystemRuns(label=r.name, model=r.model, runs=[r]))
        else:
            found.runs.append(r)
    out = sorted(groups.values(), key=lambda g: (g.ds is None, g.task,
                                                 g.ds.label if g.ds else ""))
    for g in out:
        g.systems.sort(key=lambda s: s.label)
    return out


def hidden_runs(cat: Catalog, runs: list[RunInfo], text: str = "") -> list[tuple[RunInfo, str]]:
    """The runs (matching ``text``) that no group shows, each with why: another run of the
    same system on the same data stands for it (a complete run before a partial one, then the
    newest), so the home page's "n of N runs" always adds up."""
    words = text.lower().split()
    shown: dict[str, RunInfo] = {}
    standing: dict[tuple[str, str, str], RunInfo] = {}
    for ds in cat.datasets.values():
        for s in cat.systems(ds):
            for r in s.runs:
                shown[r.rid] = r
                standing[(r.model, r.fingerprint, str(r.data_sha256 or r.data))] = r
    out = []
    for r in runs:
        held = cat.dataset_of(r)
        if r.rid in shown or held is None or not _matches(words, r, held, r.name):
            continue
        other = standing.get((r.model, r.fingerprint, str(r.data_sha256 or r.data)))
        rule = ("a complete run before a partial one" if r.is_partial and not other.is_partial
                else "the newest one") if other is not None else ""
        why = (f"run {other.rid} of the same system on the same data is shown instead "
               f"({rule})" if other is not None else "no served dataset's systems include it")
        out.append((r, why))
    return out
