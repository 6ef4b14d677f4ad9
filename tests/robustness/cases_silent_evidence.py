"""Rows of the bad-input table for issue 50, points 1 and 2: a command that succeeded with a
wrong figure. Predictions of other data scored against a gold (by id, and by content where
the ids agree), and a record that is not its evidence (a figure edited by hand, predictions
changed after the run, a seal recomputed over an edited figure). Point 6 (the Python API's
arguments) has no command: tests/public/test_argument_checks.py holds it.

Collected by :func:`tests.robustness.cases.all_cases` (every ``cases_silent_*.py``); the ids
start with ``i50 evidence:`` (``scripts/bad_input_sweep.py --only "i50 evidence"``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.robustness.harness import Case

Make = Callable[[Path, Path], None]
OTHER_DATA = "i50 predictions of other data"
EDITED = "i50 record not its evidence"
REFUSED = "do not belong to the gold"


def _answers(name: str, source: str, task: str) -> Make:
    """``{T}/<name>``: answers JSONL made from a support gold file's own instances."""
    def make(case_dir: Path, support: Path) -> None:
        from refbench.tasks.lookup import get_task

        instances = get_task(task).gold_instances(support / source)
        (case_dir / name).write_text("".join(json.dumps({"id": i.id, "answer": 0}) + "\n"
                                             for i in instances), encoding="utf-8")
    return make


def _run(source: str, then: Callable[[Path, Path], None] | None = None) -> Make:
    """``{T}/run``: a run of ``first`` on a support file; ``then(run, case_dir)`` edits it."""
    def make(case_dir: Path, support: Path) -> None:
        import refbench

        refbench.run("first", str(support / source), out=case_dir / "run", store=None,
                     progress=False)
        if then is not None:
            then(case_dir / "run", case_dir)
    return make


def _metrics(run: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    return data


def _write(run: Path, data: dict[str, Any]) -> None:
    (run / "metrics.json").write_text(json.dumps(data, indent=2), encoding="utf-8")


def _edit_inside(run: Path, case_dir: Path) -> None:
    """The figure changed to another value inside its interval: only a seal tells."""
    data = _metrics(run)
    lo, hi = data["ci95"]["accuracy"]
    data["accuracy"] = hi if data["accuracy"] != hi else lo
    _write(run, data)


def _edit_outside(run: Path, case_dir: Path) -> None:
    """The issue's edit: 0.502 -> 0.99, outside its interval."""
    data = _metrics(run)
    data["accuracy"] = 0.99
    data["ci95"] = {**data["ci95"], "accuracy": [0.2, 0.6]}
    data.pop("seal", None)  # a record written before seals
    _write(run, data)


def _change_predictions(run: Path, case_dir: Path) -> None:
    pred = run / "predictions.jsonl"
    lines = [json.loads(x) for x in pred.read_text(encoding="utf-8").splitlines() if x]
    for line in lines:
        line["answer"] = 1 - int(line["answer"])
    pred.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def _reseal(run: Path, case_dir: Path) -> None:
    """A figure edited and the seal recomputed: only re-scoring tells."""
    data = _metrics(run)
    data["accuracy"] = 1.0 if data["accuracy"] != 1.0 else 0.0
    data["ci95"] = {**data["ci95"], "accuracy": [0.0, 1.0]}
    try:
        from refbench.core.seal import seal
    except ImportError:  # a checkout before seals (the sweep's "before" count)
        _write(run, data)
        return
    _write(run, seal(data, run / "predictions.jsonl"))


def _copy_with_other_texts(run: Path, case_dir: Path) -> None:
    """``{T}/wsc-copy.jsonl``: the run's data, same ids, every sentence another."""
    src = Path(str(_metrics(run)["data"]))
    rows = [json.loads(x) for x in src.read_text(encoding="utf-8").splitlines() if x.strip()]
    for k, row in enumerate(rows):
        for key in ("sentence", "text"):
            if isinstance(row.get(key), str):
                row[key] = f"Another sentence number {k} where _ went home."
    (case_dir / "wsc-copy.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows),
                                             encoding="utf-8")


def _other_data() -> list[Case]:
    ev = ("evaluate", "--bootstrap", "0")
    rows = [
        ("GAP answers against WSC", "winograd", "{S}/wsc.jsonl", "gap.jsonl", "gap.tsv",
         "gap"),
        ("KnowRef answers against WSC", "winograd", "{S}/wsc.jsonl", "kr.jsonl",
         "knowref.json", "knowref"),
        ("WSC answers against GAP", "gap", "{S}/gap.tsv", "wsc.jsonl", "wsc.jsonl",
         "winograd"),
        ("GAP answers against KnowRef", "knowref", "{S}/knowref.json", "gap.jsonl", "gap.tsv",
         "gap"),
        ("KnowRef answers against AltEntities", "altentities", "{S}/alt.json", "kr.jsonl",
         "knowref.json", "knowref"),
        ("WSC answers against a KITMUS file", "kitmus", "{S}/kitmus.jsonl", "wsc.jsonl",
         "wsc.jsonl", "winograd"),
    ]
    out = [Case(id=f"i50 evidence: evaluate {what}",
                args=(*ev, "--task", task, "--gold", gold, "--pred", f"{{T}}/{name}"),
                make=_answers(name, source, source_task), fragment=REFUSED, cause=OTHER_DATA)
           for what, task, gold, name, source, source_task in rows]
    out += [
        Case(id="i50 evidence: evaluate a GAP run against WSC names the run's data",
             args=(*ev, "--task", "winograd", "--gold", "{S}/wsc.jsonl", "--pred", "{T}/run"),
             make=_run("gap.tsv"), fragment="the run recorded its data as", cause=OTHER_DATA),
        Case(id="i50 evidence: evaluate a run against a copy with the same ids, other texts",
             args=(*ev, "--task", "winograd", "--gold", "{T}/wsc-copy.jsonl", "--pred",
                   "{T}/run"),
             make=_run("wsc.jsonl", _copy_with_other_texts), fragment="have the gold's text",
             cause=OTHER_DATA),
        Case(id="i50 evidence: evaluate a run against its own data (scores)",
             args=(*ev, "--task", "winograd", "--gold", "{S}/wsc.jsonl", "--pred", "{T}/run"),
             make=_run("wsc.jsonl"), code=0, fragment="accuracy", cause=OTHER_DATA),
    ]
    return out


def _edited() -> list[Case]:
    return [
        Case(id="i50 evidence: report a figure edited inside its interval",
             args=("report", "{T}/run"), make=_run("wsc.jsonl", _edit_inside),
             fragment="changed after the run", cause=EDITED),
        Case(id="i50 evidence: report a figure edited outside its interval (no seal)",
             args=("report", "{T}/run"), make=_run("wsc.jsonl", _edit_outside),
             fragment="lies outside its own interval", cause=EDITED),
        Case(id="i50 evidence: results add an edited record",
             args=("results", "add", "{T}/run", "--store", "{T}/s.sqlite"),
             make=_run("wsc.jsonl", _edit_inside), fragment="changed after the run",
             cause=EDITED),
        Case(id="i50 evidence: report after the predictions changed",
             args=("report", "{T}/run"), make=_run("wsc.jsonl", _change_predictions),
             fragment="predictions.jsonl changed after the run", cause=EDITED),
        Case(id="i50 evidence: results verify --rescore a resealed edit",
             args=("results", "verify", "--rescore", "{T}/run"),
             make=_run("wsc.jsonl", _reseal), fragment="but its predictions score",
             cause=EDITED),
        Case(id="i50 evidence: results verify a sound run",
             args=("results", "verify", "--rescore", "{T}/run"), make=_run("wsc.jsonl"),
             code=0, fragment="verified: re-scored", cause=EDITED),
    ]


def silent_cases() -> list[Case]:
    return [*_other_data(), *_edited()]
