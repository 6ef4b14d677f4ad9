"""Exports of a study: answers as ``item,annotator,label`` CSV (plus unit, condition, gold,
gold_check and flags columns), everything as JSON, or the task's own format (``native``, written
by the study type: :meth:`refbench.studyfile.kinds.StudyHooks.native`) so that refbench can run
models on what people made.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.io import write_text_atomic
from refbench.studies.kinds import get_kind
from refbench.studyfile.db import StudyStore

CSV_COLUMNS = ("item", "annotator", "label", "unit", "condition", "gold", "gold_check", "flags")


def answers_by_annotator(store: StudyStore) -> dict[str, dict[str, dict[str, Any]]]:
    """{annotator name: {item id: {unit: value}}}."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for a in store.all_answers():
        out.setdefault(a.annotator, {}).setdefault(a.item_id, {})[a.unit] = a.value
    return out


def rows(store: StudyStore) -> list[dict[str, str]]:
    meta = store.meta()
    kind = get_kind(meta["kind"], meta)
    answers = answers_by_annotator(store)
    out = []
    for item in store.items():
        for a in store.annotators():
            given = answers.get(a.name, {}).get(item.id)
            if not given:
                continue
            for unit, label in kind.labels(item, given):
                flags = "; ".join(kind.flags(item, label))
                out.append({"item": item.id, "annotator": a.name, "label": label, "unit": unit,
                            "condition": item.condition, "gold": item.gold or "",
                            "gold_check": str(int(item.gold_check)), "flags": flags})
    return out


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: str) -> str:
    """A cell a spreadsheet will not run: text starting like a formula (``= + - @``, tab,
    carriage return) gets a leading ``'`` (OWASP's advice against CSV injection), since
    annotators type free text. JSON and native exports keep the text exact."""
    return "'" + value if value.startswith(FORMULA_START) else value


def to_csv(records: list[dict[str, str]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: csv_cell(str(v)) for k, v in r.items()} for r in records)
    return buf.getvalue()


def to_json(store: StudyStore) -> dict[str, Any]:
    meta = store.meta()
    return {
        "study": meta,
        "annotators": [a.name for a in store.annotators()],
        "items": [{"id": it.id, "condition": it.condition, "gold": it.gold,
                   "gold_check": it.gold_check,
                   "payload": {k: v for k, v in it.payload.items() if k != "record"}}
                  for it in store.items()],
        "answers": [{"item": a.item_id, "annotator": a.annotator, "unit": a.unit,
                     "value": a.value, "revision": a.revision, "updated_at": a.updated_at}
                    for a in store.all_answers()],
        "labels": rows(store),
    }


def export(study: Path, fmt: str, out: Path | None) -> tuple[str | None, list[Path]]:
    """Returns (text for stdout or None, files written)."""
    with StudyStore(study) as store:
        if fmt == "csv":
            text = to_csv(rows(store))
        elif fmt == "json":
            text = json.dumps(to_json(store), ensure_ascii=False, indent=1) + "\n"
        elif fmt == "native":
            if out is None:
                raise UsageError("--format native writes a folder: give --out DIR")
            return None, native(store, out)
        else:
            raise UsageError(f"unknown format {fmt!r}; choose csv, json or native")
    if out is None:
        return text, []
    write_text_atomic(out, text)
    return None, [out]


def native(store: StudyStore, out: Path) -> list[Path]:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        from refbench.core.errors import OutputError

        raise OutputError("exists and is not an empty folder", path=out)
    meta = store.meta()
    kind = get_kind(meta["kind"], meta)
    files = kind.native(store.items(), answers_by_annotator(store), out)
    if not files:
        raise UsageError("nothing to export yet: no completed answers")
    for path, text in sorted(files.items()):
        write_text_atomic(path, text)
    return sorted(files)
