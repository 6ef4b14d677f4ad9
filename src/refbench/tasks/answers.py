"""Choice answers from prediction files, as ``refbench run`` writes them and as people bring them.

- a run folder (``refbench run --out DIR``): its ``predictions.jsonl``;
- answers JSONL: ``{"id": ..., "answer": <candidate index>, "scores": [...]}``, where the
  answer may also be the candidate's text, or null for no decision (``run`` writes this);
- a WinoGrande leaderboard file (``.lst``/``.txt``): one 1-based option number per line, in the
  order of the gold file.

An instance without a prediction has no answer (it counts as wrong) and is reported.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.inputs import format_name
from refbench.core.io import read_jsonl, read_lines
from refbench.core.result import system_of
from refbench.core.types import ChoiceInstance

PREDICTIONS = "predictions.jsonl"
RUN_METRICS = "metrics.json"


def one_prediction(preds: Sequence[Path], task: str, extra: str = "") -> Path:
    """The one prediction file a task scores at a time (UsageError for several)."""
    if len(preds) != 1:
        raise UsageError(f"--task {task} scores one prediction file at a time{extra}")
    return preds[0]


def prediction_file(path: str | Path) -> Path:
    """The file to score: ``path`` itself, or a run folder's ``predictions.jsonl``."""
    p = Path(path)
    if p.is_dir():
        if (p / PREDICTIONS).is_file():
            return p / PREDICTIONS
        if (p / "suite-results.json").is_file():
            raise RefbenchError("this is a suite run folder: score it against the whole suite "
                                "(--task kitmus --gold SUITE_DIR --pred THIS_FOLDER)", path=p)
        raise RefbenchError(f"is a folder without {PREDICTIONS} (refbench run --out writes one)",
                            path=p)
    if not p.is_file():
        raise RefbenchError("prediction file not found", path=p)
    return p


def run_metadata(pred: str | Path) -> dict[str, Any] | None:
    """The ``metrics.json`` that ``refbench run`` wrote beside a predictions file, if any."""
    p = Path(pred)
    if not p.is_dir() and p.name != PREDICTIONS:
        return None
    meta = (p if p.is_dir() else p.parent) / RUN_METRICS
    if not meta.is_file():
        return None
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def system_name(pred: str | Path, given: str | None = None) -> str:
    """What to call a system in tables: the name given, else the name of the system the run
    records (:func:`refbench.core.result.system_of`, the one answer to "which system"; for a
    folder run's ``--out``, its runs'), else the first word of the file's name that names no
    format, role or split (``grep-run1.….test.tsv``: grep-run1), else its folder's (a run's
    ``predictions.jsonl`` or ``test.predictions.jsonl.gz``, never "predictions" or "test")."""
    if given:
        return given
    found = system_of(pred)
    if found is not None:
        return found.name
    p = Path(pred)
    stem = next((x for x in p.name.split(".") if x.lower() not in _NOT_A_NAME), "")
    if p.is_dir() or not stem:
        return (p if p.is_dir() else p.parent).resolve().name
    return stem


#: Words of a predictions file's name that name its format, role or split, never a system
#: (``test.predictions.jsonl.gz`` is named after its folder, not "test").
_NOT_A_NAME = frozenset({"predictions", "preds", "pred", "answers", "jsonl", "json", "gz",
                         "tsv", "lst", "txt", "jsonlines", "csv", "test", "dev", "validation",
                         "train", ""})


@dataclass
class Answers:
    """One answer (candidate index or None) per gold instance, in gold order."""

    answers: list[int | None]
    answers_norm: list[int | None] | None
    n_missing: int
    n_extra: int
    warnings: list[str] = field(default_factory=list)
    missing_ids: set[str] = field(default_factory=set)


def _index(value: Any, inst: ChoiceInstance, *, path: Path, line: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise RefbenchError(f"answer {value!r} is not a candidate index or text", path=path,
                            line=line, item=inst.id)
    if isinstance(value, int):
        if not 0 <= value < len(inst.candidates):
            raise RefbenchError(f"answer {value} is not a candidate index (0..."
                                f"{len(inst.candidates) - 1})", path=path, line=line,
                                item=inst.id)
        return value
    if isinstance(value, str):
        matches = [k for k, c in enumerate(inst.candidates) if c.text == value]
        if not matches:
            raise RefbenchError(f"answer {value!r} names no candidate (candidates: "
                                f"{', '.join(c.text for c in inst.candidates)})", path=path,
                                line=line, item=inst.id)
        return matches[0]
    raise RefbenchError("'answer' must be a candidate index, a candidate's text or null",
                        path=path, line=line, item=inst.id)


def _read_jsonl(path: Path, instances: Sequence[ChoiceInstance]) -> Answers:
    by_id = {inst.id: inst for inst in instances}
    found: dict[str, int | None] = {}
    found_norm: dict[str, int | None] = {}
    extra = 0
    all_norm = True
    for line, obj in read_jsonl(path):
        if "id" not in obj or "answer" not in obj:
            raise RefbenchError("an answer line needs 'id' and 'answer'", path=path, line=line)
        key = str(obj["id"])
        inst = by_id.get(key)
        if inst is None:
            extra += 1
            continue
        found[key] = _index(obj["answer"], inst, path=path, line=line)
        norm = (obj.get("extra") or {}).get("answer_norm") if isinstance(obj.get("extra"),
                                                                           dict) else None
        if norm is None and obj["answer"] is not None:
            all_norm = False
        found_norm[key] = _index(norm, inst, path=path, line=line)
    answers = [found.get(i.id) for i in instances]
    missing_ids = {i.id for i in instances if i.id not in found}
    missing = len(missing_ids)
    warnings = []
    if missing:
        warnings.append(f"{missing} gold instances have no prediction; counted as wrong")
    if extra:
        warnings.append(f"{extra} predicted ids are not in the gold; ignored")
    norm_list = [found_norm.get(i.id) for i in instances] if all_norm and found_norm else None
    return Answers(answers, norm_list, missing, extra, warnings, missing_ids)


def _read_lst(path: Path, instances: Sequence[ChoiceInstance]) -> Answers:
    values = [(n, s.strip()) for n, s in read_lines(path) if s.strip()]
    if len(values) != len(instances):
        raise RefbenchError(f"{len(values)} answers for {len(instances)} gold instances (a "
                            "leaderboard file has one 1-based answer per gold line, in order)",
                            path=path)
    answers: list[int | None] = []
    for (line, value), inst in zip(values, instances, strict=True):
        if not value.isdigit() or not 1 <= int(value) <= len(inst.candidates):
            raise RefbenchError(f"expected an option number 1...{len(inst.candidates)}, found "
                                f"{value!r}", path=path, line=line, item=inst.id)
        answers.append(int(value) - 1)
    return Answers(answers, None, 0, 0, [])


def read_choice_answers(path: str | Path, instances: Sequence[ChoiceInstance]) -> Answers:
    """Answers for ``instances`` from a run folder, answers JSONL or a leaderboard list."""
    p = prediction_file(path)
    name = format_name(p)
    if name.endswith(".jsonl"):
        return _read_jsonl(p, instances)
    if name.endswith((".lst", ".txt")):
        return _read_lst(p, instances)
    raise RefbenchError("unknown prediction format: expected answers .jsonl (refbench run's "
                        "predictions.jsonl), a run folder, or a .lst file of option numbers",
                        path=p)
