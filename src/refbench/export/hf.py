"""``refbench export hf``: a suite or data files in the layout Hugging Face ``datasets`` reads
from a folder or a Hub repository, with no loading script (``datasets`` >= 4 refuses them).

The folder holds JSONL data files and a ``README.md`` dataset card. The card's YAML header
declares the configurations (``configs``: ``data_files`` per split, one ``default: true``), the
licence, the task and size categories and ``dataset_info`` (features and split sizes, inferred
by ``datasets`` from the rows themselves, so the header always matches the files); its body is
the datasheet. Rows are:

- a KITMUS suite: one config per subtask, ``<variant>_<n>ents``, whose rows are the suite's
  native JSONL lines, byte for byte (the fields ``refbench run`` and ``refbench serve`` read);
- a file of any choice task (KnowRef, AltEntities, GAP, Winograd-style, ...): the instances as
  refbench reads them (the corrected gold, candidates with their character spans; the
  task-specific ``metadata`` as a JSON string so every row has one schema);
- TNE: the documents, with the release's field names.

Several files of one task are the splits of one config (``dev.tsv``, ``test.tsv``, ...).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.inputs import binary_lines, format_name
from refbench.core.io import atomic_write, sha256_file, write_text_atomic
from refbench.core.types import ChoiceInstance
from refbench.export.cards import KITMUS_LICENCES, Card, card_for, size_category

SPLIT_ORDER = ("train", "validation", "dev", "test", "ood")
Rows = list[dict[str, Any]]


def choice_row(inst: ChoiceInstance) -> dict[str, Any]:
    """One choice instance as a dataset row: refbench's reading of it, one schema for all."""
    return {"id": inst.id, "task": inst.task, "context": inst.context,
            "expression": inst.expression, "expression_offset": inst.expression_offset,
            "candidates": [{"text": c.text, "description": c.description,
                            "char_spans": [list(s) for s in c.char_spans]}
                           for c in inst.candidates],
            "gold": inst.gold,
            "metadata": json.dumps(inst.metadata, ensure_ascii=False, sort_keys=True,
                                   default=str)}


def tne_rows(path: Path) -> Iterator[dict[str, Any]]:
    """TNE documents as rows, in the release's field names (v1.0 and v1.1 alike)."""
    from refbench.tasks.tne.read import read_tne

    for doc in read_tne(path):
        rels = None if doc.relations is None else [
            {"anchor": a, "complement": c, "prepositions": sorted(p)}
            for (a, c), p in sorted(doc.relations.items())]
        yield {"id": doc.id, "text": doc.text, "tokens": list(doc.tokens),
               "nps": [{"id": n.id, "text": n.text, "first_char": n.first_char,
                        "last_char": n.last_char, "first_token": n.first_token,
                        "last_token": n.last_token} for n in doc.nps],
               "np_relations": rels,
               "coref": [{"id": i, "members": list(m), "np_type": t}
                         for i, m, t in doc.clusters],
               "metadata": json.dumps(doc.metadata, ensure_ascii=False, sort_keys=True,
                                      default=str)}


# Tasks whose files are documents rather than choice instances: their row readers, and a
# key of the first JSON record that tells such a file apart.
DOCUMENT_TASKS = {"tne": (tne_rows, "nps")}


def _file_task(path: Path, task: str | None) -> str:
    if task:
        return task
    first = next(iter(binary_lines(path)), b"")
    try:
        obj = json.loads(first) if format_name(path).endswith(".jsonl") else None
    except (json.JSONDecodeError, UnicodeDecodeError):
        obj = None
    for name, (_, key) in DOCUMENT_TASKS.items():
        if isinstance(obj, dict) and key in obj:
            return name
    from refbench.tasks.choices import infer_task

    return infer_task(path)


def file_rows(path: Path, task: str, reader_options: dict[str, Any] | None) -> Rows:
    if task in DOCUMENT_TASKS:
        return list(DOCUMENT_TASKS[task][0](path))
    from refbench.tasks.choices import read_choices

    return [choice_row(i) for i in read_choices(path, task=task, options=reader_options)]


def split_name(path: Path) -> str:
    from refbench.tasks.choices import infer_split

    split = infer_split(path)
    if split:
        return split
    return format_name(path).split(".")[0].replace("-", "_")


def _features_yaml(rows: Rows, config: str, splits: dict[str, int]) -> dict[str, Any]:
    """``dataset_info`` of one config, as ``datasets`` itself writes it."""
    import datasets

    features = datasets.Dataset.from_list(rows).features
    info = datasets.DatasetInfo(features=features, config_name=config, splits=datasets.SplitDict(
        {s: datasets.SplitInfo(s, num_examples=n) for s, n in splits.items()}))
    return dict(info._to_yaml_dict())


def _ordered(splits: dict[str, Any]) -> list[str]:
    return sorted(splits, key=lambda s: (SPLIT_ORDER.index(s) if s in SPLIT_ORDER else 99, s))


class _Config:
    def __init__(self, name: str) -> None:
        self.name = name
        self.files: dict[str, str] = {}  # split -> path in the export
        self.counts: dict[str, int] = {}
        self.rows: Rows = []


def export_suite(suite: Path, out: Path) -> tuple[list[_Config], dict[str, Any]]:
    """One config per subtask; data files are the native JSONL lines."""
    from refbench.tasks.kitmus.instance import SUBTASK_DIR

    configs = []
    for sub in sorted(p for p in suite.rglob("subtask_*_ents") if p.is_dir()):
        m = SUBTASK_DIR.match(sub.name)
        if not m:
            continue
        cfg = _Config(f"{sub.parent.name}_{int(m.group(1))}ents")
        for split in SPLIT_ORDER:
            src = next((p for p in (sub / f"{split}.jsonl", sub / f"{split}.jsonl.gz")
                        if p.is_file()), None)
            if src is None:
                continue
            rel = f"data/{cfg.name}/{split}.jsonl"
            n = 0
            with atomic_write(out / rel) as fh:
                for raw in binary_lines(src):
                    line = raw.decode("utf-8").strip()
                    if line:
                        fh.write(line + "\n")
                        cfg.rows.append(json.loads(line))
                        n += 1
            cfg.files[split], cfg.counts[split] = rel, n
        if cfg.files:
            configs.append(cfg)
    if not configs:
        raise RefbenchError("no native JSONL subtask files (expected <variant>/subtask_<n>_"
                            "ents/<split>.jsonl, as refbench kitmus generate writes)", path=suite)
    stats_path = suite / "stats.json"
    stats = json.loads(stats_path.read_text(encoding="utf-8")) if stats_path.is_file() else {}
    return configs, stats


def export_files(paths: Sequence[Path], out: Path, task: str | None,
                 reader_options: dict[str, Any] | None) -> tuple[list[_Config], str]:
    tasks = {p: _file_task(p, task) for p in paths}
    if len(set(tasks.values())) > 1:
        raise UsageError("export the files of one task at a time: "
                         + ", ".join(f"{p.name} is {t}" for p, t in tasks.items()))
    the_task = next(iter(tasks.values()))
    cfg = _Config("default")
    for p in paths:
        split = split_name(p)
        if split in cfg.files:
            raise UsageError(f"two files give split {split!r} ({p.name}); export them "
                             "separately")
        rows = file_rows(p, the_task, reader_options)
        if not rows:
            raise RefbenchError("holds no instances", path=p)
        rel = f"data/{split}.jsonl"
        with atomic_write(out / rel) as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        cfg.files[split], cfg.counts[split] = rel, len(rows)
        cfg.rows += rows
    return [cfg], the_task


def card_header(configs: list[_Config], card: Card, licence: str) -> dict[str, Any]:
    total = sum(sum(c.counts.values()) for c in configs)
    return {
        "pretty_name": card.pretty_name,
        "license": licence,
        "language": ["en"],
        "task_categories": ["token-classification"],
        "task_ids": ["coreference-resolution"],
        "annotations_creators": list(card.annotations_creators),
        "size_categories": [size_category(total)],
        "source_datasets": ["original"],
        "configs": [{"config_name": c.name,
                     "data_files": [{"split": s, "path": c.files[s]} for s in _ordered(c.files)],
                     **({"default": True} if i == 0 else {})}
                    for i, c in enumerate(configs)],
        "dataset_info": [_features_yaml(c.rows, c.name, {s: c.counts[s]
                                                          for s in _ordered(c.counts)})
                         for c in configs],
    }


def render_card(header: dict[str, Any], body: str) -> str:
    import yaml

    head = str(yaml.safe_dump(header, sort_keys=False, allow_unicode=True, width=100))
    return "---\n" + head + "---\n\n" + body.rstrip() + "\n"


def _body(title: str, card: Card, licence: str, configs: list[_Config],
          sources: list[tuple[str, str]], datasheet: str | None) -> str:
    first = configs[0]
    split = "test" if "test" in first.files else _ordered(first.files)[0]
    lines = [f"# {title}", "",
             "Exported by refbench (`refbench export hf`); no "
             "loading script, so `datasets` >= 4 reads it from this folder or a Hub repo:", "",
             "```python", "import datasets", "",
             f'ds = datasets.load_dataset("PATH_OR_REPO", "{first.name}", split="{split}")',
             "```", "", "## Configurations", "",
             "| config | " + " | ".join(["split", "rows"]) + " |", "|---|---|---|"]
    for c in configs:
        for s in _ordered(c.counts):
            lines.append(f"| `{c.name}` | {s} | {c.counts[s]:,} |")
    lines += ["", "## Source and licence", "", f"Source: {card.source}.", "",
              f"Licence: `{licence}`." + (f" {card.notes}" if card.notes else ""), "",
              "Exported files (sha256):", ""]
    lines += [f"- `{name}`: `{sha}`" for name, sha in sources]
    lines += ["", "## Citation", "", card.citation, ""]
    if datasheet:
        lines += ["## Datasheet (from the suite)", "",
                  re.sub(r"^#{1,2} ", "### ", datasheet, flags=re.M)]
    return "\n".join(lines)


def export_hf(inputs: Sequence[Path], out: Path, *, task: str | None = None,
              reader_options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write the export to ``out``; returns a summary. (The command runs it as one output
    group: on a failure nothing is left half-written.)"""
    if not inputs:
        raise UsageError("give a KITMUS suite folder or data files")
    if len(inputs) == 1 and inputs[0].is_dir():
        suite = inputs[0]
        configs, stats = export_suite(suite, out)
        card = card_for("kitmus")
        layout = stats.get("resources", {}).get("layout", "")
        licence = KITMUS_LICENCES.get(layout, "unknown")
        sheet = suite / "DATASHEET.md"
        datasheet = sheet.read_text(encoding="utf-8") if sheet.is_file() else None
        sources = [(str(Path(*Path(c.files[s]).parts[1:])), sha256_file(out / c.files[s]))
                   for c in configs for s in _ordered(c.files)]
        the_task = "kitmus"
    else:
        for p in inputs:
            if p.is_dir():
                raise UsageError(f"{p} is a folder: give one KITMUS suite folder, or files")
        configs, the_task = export_files(inputs, out, task, reader_options)
        card = card_for(the_task)
        licence, datasheet = card.license, None
        sources = [(p.name, sha256_file(p)) for p in inputs]
    header = card_header(configs, card, licence)
    body = _body(card.pretty_name, card, licence, configs, sources, datasheet)
    write_text_atomic(out / "README.md", render_card(header, body))
    return {"out": str(out), "task": the_task, "license": licence,
            "configs": {c.name: {s: c.counts[s] for s in _ordered(c.counts)} for c in configs}}
