"""Exports of a study: answers as ``item,annotator,label`` CSV (plus unit, condition, gold,
gold_check and flags columns), everything as JSON, or the task's own format (``native``) so that
refbench can run models on what people made.

Native: KITMUS validation writes, per condition (and for the gold checks), the items in their
source format as a gold file (without the knowledge text: the suite's task-text-only view when
it has one, so a model reads what people read) and each annotator's answers (and the majority)
as answers JSONL: ``refbench run --data gold.<ext>`` runs a model on exactly those items and
``refbench evaluate --task kitmus --gold gold.<ext> --pred ann1.jsonl`` scores a person like a
system. AltEntities writes the release's JSON (one question per pair, everyone's expressions);
TNE writes one v1.1 JSONL per annotator with the documents they completed.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from refbench.core.errors import UsageError
from refbench.core.io import write_text_atomic
from refbench.studies.db import Item, StudyStore
from refbench.studies.kinds import get_kind

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
                flags = ""
                if meta["kind"] == "altentities-collection":
                    from refbench.studies.altentities import flags as expression_flags

                    flags = "; ".join(expression_flags(item, label))
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
    kind = store.kind
    answers = answers_by_annotator(store)
    items = store.items()
    files: dict[Path, str] = {}
    if kind == "kitmus-validation":
        files = _kitmus_native(items, answers, out)
    elif kind == "altentities-collection":
        files = {out / "altentities.json": _altentities_native(items, answers)}
    else:
        from refbench.studies.tne import is_complete
        from refbench.studies.tne_export import document

        for name, by_item in sorted(answers.items()):
            lines = [json.dumps(document(it, by_item[it.id], name), ensure_ascii=False) + "\n"
                     for it in items if it.id in by_item and is_complete(it, by_item[it.id])]
            if lines:
                files[out / f"{name}.jsonl"] = "".join(lines)
    if not files:
        raise UsageError("nothing to export yet: no completed answers")
    for path, text in sorted(files.items()):
        write_text_atomic(path, text)
    return sorted(files)


def _kitmus_native(items: list[Item], answers: dict[str, dict[str, dict[str, Any]]],
                   out: Path) -> dict[Path, str]:
    from refbench.metrics.agreement import majority
    from refbench.studies.kitmus import label_of
    from refbench.studies.records import FORMATS

    groups: dict[tuple[str, str], list[Item]] = defaultdict(list)
    for it in items:
        groups[("gold-checks" if it.gold_check else it.condition,
                it.payload.get("format") or "none")].append(it)
    formats_per_group = defaultdict(set)
    for group, fmt in groups:
        formats_per_group[group].add(fmt)
    files: dict[Path, str] = {}
    for (group, fmt), members in sorted(groups.items()):
        folder = out / (group if len(formats_per_group[group]) == 1 else f"{group}-{fmt}")
        if fmt in FORMATS and all(it.payload.get("record") for it in members):
            files[folder / f"gold.{FORMATS[fmt]}"] = "".join(it.payload["record"]
                                                             for it in members)
        ratings = []
        for name, by_item in sorted(answers.items()):
            lines = []
            for it in members:
                if "" in by_item.get(it.id, {}):
                    choice = by_item[it.id][""]["choice"]
                    lines.append(json.dumps({"id": it.payload["source_id"], "answer": choice}) +
                                 "\n")
                    ratings.append((it.id, name, label_of(it, choice)))
            if lines:
                files[folder / f"{name}.jsonl"] = "".join(lines)
        votes = majority(ratings)
        lines = []
        for it in members:
            if votes.get(it.id) is not None:
                names = it.payload["candidates"]
                label = votes[it.id]
                answer = names.index(label) if label in names else None
                lines.append(json.dumps({"id": it.payload["source_id"], "answer": answer}) + "\n")
        if lines:
            files[folder / "majority.jsonl"] = "".join(lines)
    return files


def _altentities_native(items: list[Item], answers: dict[str, dict[str, dict[str, Any]]]) -> str:
    from refbench.studies.altentities import expressions_of

    questions = []
    for it in items:
        p = it.payload
        exprs, who = [], []
        for name, by_item in sorted(answers.items()):
            mine = expressions_of(by_item.get(it.id, {}))
            exprs += mine
            who += [name] * len(mine)
        if not exprs:
            continue
        target = p["choices"][p["target_index"]]
        questions.append({
            "domain": p["domain"], "question": p["question"],
            "target": target.get("wikipedia_url") or p["keys"][p["target_index"]],
            "target_index": p["target_index"], "sampling_method": p["sampling_method"],
            "description_section": "", "choices": p["choices"], "expressions": exprs,
            "expression_annotators": who, "study_item": it.id,
        })
    return json.dumps(questions, ensure_ascii=False, indent=1) + "\n"
