"""``report --against SYSTEM``: each cell of the model card tested against the same benchmark's
cell of SYSTEM, paired over the instances both answered (McNemar's exact test on the
discordant pairs, :func:`refbench.metrics.binomial.mcnemar_exact_p`), and the p values
adjusted together by Holm's step-down correction over the table (statsmodels'
``multipletests``): a cell is marked where its adjusted p is below 0.05. Right and wrong come
from each run's predictions and the gold the run read (a cell whose predictions are not kept,
or a task without choice instances, is not tested)."""

from __future__ import annotations

import json
from pathlib import Path

from refbench.core.errors import UsageError
from refbench.reporting.card import Cell, Entry, ModelCard
from refbench.tasks.lookup import find_task

PREDICTIONS = "predictions.jsonl"


def _correct(entry: Entry) -> dict[str, bool] | None:
    """instance id -> answered right, of one run (None when it cannot be told)."""
    r = entry.result
    task = find_task(r.task)
    folder = Path(entry.source) if entry.source else None
    if task is None or task.documents is not None or folder is None \
            or not (folder / PREDICTIONS).is_file() or not Path(r.data.path).is_file():
        return None
    answers: dict[str, int | None] = {}
    with (folder / PREDICTIONS).open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                answers[str(row.get("id"))] = row.get("answer")
    options = dict(r.details.get("reader_options") or {})
    out = {}
    for inst in task.read_choices(Path(r.data.path), options=options):
        if inst.gold is not None and inst.id in answers:
            out[inst.id] = answers[inst.id] == inst.gold
    return out


def _cell_correct(cell: Cell, cache: dict[int, dict[str, bool] | None]
                  ) -> dict[str, bool] | None:
    merged: dict[str, bool] = {}
    for e in cell.entries:
        got = cache.setdefault(id(e), _correct(e))
        if got is None:
            return None
        merged.update({f"{e.result.data.sha256}:{k}": v for k, v in got.items()})
    return merged


def mark_against(card: ModelCard, against: str) -> None:
    """Set each cell's Holm-adjusted p against ``against`` (its own cells stay untested)."""
    from statsmodels.stats.multitest import multipletests

    from refbench.metrics.binomial import mcnemar_exact_p

    if against not in card.systems:
        raise UsageError(f"--against {against!r}: no such system in the table (the systems: "
                         f"{', '.join(card.systems)})")
    card.against = against
    cache: dict[int, dict[str, bool] | None] = {}
    tested: list[tuple[Cell, float]] = []
    for b in card.benchmarks:
        ref = card.cell(against, b.name)
        ref_right = _cell_correct(ref, cache) if ref is not None else None
        if ref_right is None:
            continue
        for s in card.systems:
            c = card.cell(s, b.name)
            if s == against or c is None or c.partial:
                continue
            right = _cell_correct(c, cache)
            if right is None:
                continue
            both = ref_right.keys() & right.keys()
            only_c = sum(1 for k in both if right[k] and not ref_right[k])
            only_ref = sum(1 for k in both if ref_right[k] and not right[k])
            tested.append((c, mcnemar_exact_p(only_c, only_ref)))
    if not tested:
        card.notes.append(f"--against {against}: no cell could be tested (no predictions kept)")
        return
    adjusted = multipletests([p for _, p in tested], alpha=0.05, method="holm")[1]
    for (c, _), p in zip(tested, adjusted, strict=True):
        c.p_adjusted = float(p)
    card.notes.append(f"--against {against}: {len(tested)} paired tests, Holm-adjusted")
