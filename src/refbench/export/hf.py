"""``refbench export hf``: a suite or data files in the layout Hugging Face ``datasets`` reads
from a folder or a Hub repository, with no loading script (``datasets`` >= 4 refuses them).

The folder holds JSONL data files (or Parquet with ``fmt="parquet"``: ``datasets`` writes them,
with the features of the config's rows) and a ``README.md`` dataset card. The card's YAML header
declares the configurations (``configs``: ``data_files`` per split, one ``default: true``), the
licence, the task and size categories and ``dataset_info`` (features and split sizes, inferred
by ``datasets`` from the rows themselves, so the header always matches the files); its body is
the datasheet. Nothing here names a task: the card's facts are the task's card
(:mod:`refbench.tasks.card`), and the rows are

- for a data file: the task's own rows (its export capability's
  :meth:`~refbench.tasks.capabilities.HfExport.rows`: TNE's documents in the release's field
  names), else its choice instances as refbench reads them (the corrected gold,
  candidates with their character spans; the task-specific ``metadata`` as a JSON string so
  every row has one schema);
- for a folder taken whole (:meth:`~refbench.tasks.capabilities.HfExport.folder`: a KITMUS
  suite, one config per subtask whose rows are the native JSONL lines byte for byte; the
  Winogender release; WinoBias, one config per type and stereotype): the configs and splits
  the task names, each file's rows as above.

Several files of one task are the splits of one config (``dev.tsv``, ``test.tsv``, ...).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.inputs import format_name, parse_json_line, read_lines
from refbench.core.io import atomic_path, atomic_write, sha256_file, write_text_atomic
from refbench.core.types import ChoiceInstance
from refbench.export.cards import size_category
from refbench.export.folder import export_folder as export_into
from refbench.tasks.base import Task
from refbench.tasks.card import Card
from refbench.tasks.hf_parts import HfFolder, HfPart

SPLIT_ORDER = ("train", "validation", "dev", "test", "ood")
FORMATS = ("jsonl", "parquet")
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


def file_task(path: Path, task: Task | None) -> Task:
    """The task of a data file: ``task`` when given, else the one whose sniffer claims it
    (document tasks included)."""
    if task:
        return task
    from refbench.tasks.choices import infer_task

    return infer_task(path, kinds=None)


def file_rows(path: Path, task: Task, reader_options: dict[str, Any] | None) -> Rows:
    """The rows of one data file: the task's own (its export capability's
    :meth:`~refbench.tasks.capabilities.HfExport.rows`), else its choice instances."""
    own = task.export.rows(path) if task.export is not None else None
    if own is not None:
        return list(own)
    from refbench.tasks.choices import read_choices

    return [choice_row(i) for i in read_choices(path, task=task, options=reader_options)]


def split_name(path: Path, task: Task) -> str:
    """The split a file becomes: the task's reading of it, else the file's name."""
    split = task.infer_split(path)
    if split:
        return split
    return format_name(path).split(".")[0].replace("-", "_")


def _features_yaml(features: Any, config: str, splits: dict[str, int]) -> dict[str, Any]:
    """``dataset_info`` of one config, as ``datasets`` itself writes it."""
    import datasets

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
        self.split_rows: dict[str, Rows] = {}

    def add(self, split: str, rel: str, rows: Rows) -> None:
        self.files[split], self.counts[split] = rel, len(rows)
        self.split_rows[split] = rows
        self.rows += rows

    @cached_property
    def features(self) -> Any:
        """The features ``datasets`` infers from all the config's rows: one schema for every
        split, declared in the card's ``dataset_info`` and given to the Parquet writer."""
        import datasets

        return datasets.Dataset.from_list(self.rows).features


def _write_rows(out: Path, rel: str, rows: Rows) -> None:
    with atomic_write(out / rel) as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n")


def _native_lines(part: HfPart) -> Iterator[tuple[str, dict[str, Any]]]:
    """The file's JSON lines (blank lines dropped), each with its row, checked as every other
    reader checks them (UTF-8, one JSON object per line: one error naming the file and line)
    and by the part's own record check (the task's reader: what ``export lm-eval`` and
    ``run`` accept), so that a file ``run`` refuses is never exported."""
    for number, text in read_lines(part.file):
        line = text.strip()
        if line:
            row = parse_json_line(line, path=part.file, number=number)
            if part.check is not None:
                part.check(row, part.file, number)
            yield line, row


def _copy_native(part: HfPart, out: Path, rel: str) -> Rows:
    """The file's JSON lines, copied byte for byte (blank lines dropped), and their rows."""
    rows: Rows = []
    with atomic_write(out / rel) as fh:
        for line, row in _native_lines(part):
            fh.write(line + "\n")
            rows.append(row)
    return rows


def folder_task(path: Path, task: Task | None) -> tuple[Task, HfFolder]:
    """The task that takes the folder whole (its export capability's
    :meth:`~refbench.tasks.capabilities.HfExport.folder`), and its parts."""
    from refbench.tasks.lookup import tasks_with

    takers = tasks_with("export")
    for t in [task] if task else takers:
        folder = t.export.folder(path) if t.export is not None else None
        if folder is not None:
            return t, folder
    takers = [t for t in takers if t.folder is not None]
    raise RefbenchError("no task exports this folder; give data files, or a release folder "
                        f"of {', '.join(t.name for t in takers)}", path=path)


def export_folder(path: Path, folder: HfFolder, out: Path, task: Task,
                  reader_options: dict[str, Any] | None, fmt: str = "jsonl"
                  ) -> tuple[list[_Config], dict[str, str | None]]:
    """One config per ``HfPart.config`` (in order of first appearance); the sources: an
    exported file for native parts (its sha256 None until a Parquet file is written), an input
    file for the others. JSONL data files are written here, Parquet ones by
    :func:`write_parquet` once every split of a config is read."""
    configs: dict[str, _Config] = {}
    sources: dict[str, str | None] = {}
    for part in folder.parts:
        cfg = configs.setdefault(part.config, _Config(part.config))
        if part.split in cfg.files:
            raise UsageError(f"two files give split {part.split!r} of config {cfg.name!r} "
                             f"({part.file.name})")
        rel = f"data/{cfg.name}/{part.split}.{fmt}"
        if part.native:
            if fmt == "jsonl":
                rows = _copy_native(part, out, rel)
            else:
                rows = [row for _, row in _native_lines(part)]
            sources[rel.removeprefix("data/")] = \
                sha256_file(out / rel) if fmt == "jsonl" else None
        else:
            rows = file_rows(part.file, task, reader_options)
            if not rows:
                raise RefbenchError("holds no instances", path=part.file)
            if fmt == "jsonl":
                _write_rows(out, rel, rows)
            name = part.file.relative_to(path) if part.file.is_relative_to(path) else part.file
            sources[str(name)] = sha256_file(part.file)
        cfg.add(part.split, rel, rows)
    return list(configs.values()), sources


def export_files(paths: Sequence[Path], out: Path, task: Task | None,
                 reader_options: dict[str, Any] | None, fmt: str = "jsonl"
                 ) -> tuple[list[_Config], Task]:
    tasks = {p: file_task(p, task) for p in paths}
    if len({t.name for t in tasks.values()}) > 1:
        raise UsageError("export the files of one task at a time: "
                         + ", ".join(f"{p.name} is {t}" for p, t in tasks.items()))
    the_task = next(iter(tasks.values()))
    cfg = _Config("default")
    for p in paths:
        split = split_name(p, the_task)
        if split in cfg.files:
            raise UsageError(f"two files give split {split!r} ({p.name}); export them "
                             "separately")
        rows = file_rows(p, the_task, reader_options)
        if not rows:
            raise RefbenchError("holds no instances", path=p)
        rel = f"data/{split}.{fmt}"
        if fmt == "jsonl":
            _write_rows(out, rel, rows)
        cfg.add(split, rel, rows)
    return [cfg], the_task


def write_parquet(out: Path, configs: list[_Config]) -> None:
    """Every split's rows as the Parquet file its config names, written by ``datasets`` with
    the config's features (one schema for all its splits), each file atomically."""
    import datasets

    quiet = datasets.utils.are_progress_bars_disabled()
    datasets.disable_progress_bars()  # one "Creating parquet" bar per file says nothing
    try:
        for cfg in configs:
            for split, rows in cfg.split_rows.items():
                with atomic_path(out / cfg.files[split]) as tmp:
                    datasets.Dataset.from_list(rows, features=cfg.features).to_parquet(str(tmp))
    finally:
        if not quiet:
            datasets.enable_progress_bars()


def card_header(configs: list[_Config], card: Card, licence: str) -> dict[str, Any]:
    total = sum(sum(c.counts.values()) for c in configs)
    return {
        "pretty_name": card.pretty_name,
        "license": licence,
        "language": ["en"],
        "task_categories": list(card.task_categories),
        "task_ids": ["coreference-resolution"],
        "annotations_creators": list(card.annotations_creators),
        "size_categories": [size_category(total)],
        "source_datasets": list(card.source_datasets),
        "configs": [{"config_name": c.name,
                     "data_files": [{"split": s, "path": c.files[s]} for s in _ordered(c.files)],
                     **({"default": True} if i == 0 else {})}
                    for i, c in enumerate(configs)],
        "dataset_info": [_features_yaml(c.features, c.name, {s: c.counts[s]
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
    if card.bibtex:
        lines += ["```bibtex", card.bibtex, "```", ""]
    if datasheet:
        lines += ["## Datasheet (from the suite)", "",
                  re.sub(r"^#{1,2} ", "### ", datasheet, flags=re.M)]
    return "\n".join(lines)


def export_hf(inputs: Sequence[Path], out: Path, *, task: Task | None = None,
              reader_options: dict[str, Any] | None = None,
              fmt: str = "jsonl") -> dict[str, Any]:
    """Write the export to ``out``; returns a summary. Everything is written into a temporary
    sibling folder that replaces ``out`` whole at the end (:mod:`refbench.export.folder`): a
    failed or killed export never leaves a folder that looks complete, nor stale files."""
    if not inputs:
        raise UsageError("give a KITMUS suite folder or data files")
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    with export_into(out, "hf", inputs=[(p, "INPUTS") for p in inputs]) as tmp:
        summary = _export(inputs, tmp, task=task, reader_options=reader_options, fmt=fmt)
    return {"out": str(out), **summary}


def _export(inputs: Sequence[Path], out: Path, *, task: Task | None,
            reader_options: dict[str, Any] | None, fmt: str) -> dict[str, Any]:
    if len(inputs) == 1 and inputs[0].is_dir():
        the_task, folder = folder_task(inputs[0], task)
        configs, exported = export_folder(inputs[0], folder, out, the_task, reader_options, fmt)
        card = the_task.card
        licence, datasheet = folder.licence or card.licence, folder.datasheet
    else:
        for p in inputs:
            if p.is_dir():
                raise UsageError(f"{p} is a folder: give one release folder, or files")
        configs, the_task = export_files(inputs, out, task, reader_options, fmt)
        card = the_task.card
        licence, datasheet = card.licence, None
        exported = {p.name: sha256_file(p) for p in inputs}
    if fmt == "parquet":
        write_parquet(out, configs)
    sources = [(name, sha or sha256_file(out / "data" / name)) for name, sha in exported.items()]
    header = card_header(configs, card, licence)
    body = _body(card.pretty_name, card, licence, configs, sources, datasheet)
    write_text_atomic(out / "README.md", render_card(header, body))
    return {"task": the_task.name, "license": licence, "format": fmt,
            "configs": {c.name: {s: c.counts[s] for s in _ordered(c.counts)} for c in configs}}
