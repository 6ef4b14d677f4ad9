"""``refbench knowref mine``: mine Winograd-like sentences from large text collections.

Inputs are streamed (plain text: one document per non-blank line; JSONL with a text field such
as Reddit's ``body``; ``.gz``/``.bz2``), in chunks of records. A chunk goes through every stage
(see :mod:`refbench.tasks.knowref.mine_filters`), then label generation and gender-cue removal,
and returns its records and funnel counts. Engines run the same chunk function:

- ``local``: in this process, or in ``--workers N`` processes (a bounded window of chunks, so
  memory stays constant however large the input);
- ``dask``: dask.bag over the chunks on a distributed cluster (``--scheduler ADDRESS``), again in
  bounded windows.

Output order is the input order whatever the engine, so all engines give identical files.
Undecodable records (bad JSON, a missing text field, bytes that are not UTF-8) are counted and
skipped, never fatal.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.inputs import binary_lines
from refbench.core.io import atomic_write
from refbench.core.process_pool import AsyncTask
from refbench.core.workers import dask_client, worker_pool
from refbench.tasks.knowref.mine_filters import (
    STAGES,
    Candidate,
    cheap_filters,
    clean,
    person_names,
    spacy_stages,
    split_sentences,
)

TEXT_FIELDS = ("body", "text", "description", "unshown_background", "content")
Record = tuple[str, int, str | None]  # (source file, record index, text or None if undecodable)


def read_records(paths: Sequence[Path], *, field: str | None = None) -> Iterator[Record]:
    """Stream (source, index, text) records; undecodable ones carry text None."""
    for path in paths:
        base = path.name.rsplit(".", 1)[0] if path.suffix in (".gz", ".bz2") else path.name
        is_jsonl = base.endswith((".jsonl", ".json"))
        for i, line in enumerate(binary_lines(path)):
            try:
                text = line.decode("utf-8").strip()
            except UnicodeDecodeError:
                yield (str(path), i, None)
                continue
            if not text:
                continue
            if not is_jsonl:
                yield (str(path), i, text)
                continue
            try:
                obj = json.loads(text)
                keys = [field] if field else TEXT_FIELDS
                value = next((obj[k] for k in keys if isinstance(obj, dict)
                              and isinstance(obj.get(k), str)), None)
            except (json.JSONDecodeError, RecursionError):
                value = None
            yield (str(path), i, value)


_NLP: Any = None
_FIRST: frozenset[str] | None = None


def _nlp() -> Any:
    global _NLP, _FIRST
    if _NLP is None:
        from refbench.tasks.spacy_english import english

        _NLP = english("KnowRef mining")
        _FIRST = person_names()
    return _NLP


def process_chunk(chunk: Sequence[Record], seed: int = 0) -> tuple[list[dict[str, Any]],
                                                                  dict[str, int]]:
    """Every stage for a chunk of records: (output records, funnel counts)."""
    from refbench.tasks.knowref.neutralize import neutralize_record

    counts: Counter[str] = Counter()
    cands: list[Candidate] = []
    for source, index, text in chunk:
        counts["records"] += 1
        if text is None:
            counts["undecodable"] += 1
            continue
        for j, sentence in enumerate(split_sentences(text)):
            counts["sentences"] += 1
            cleaned = clean(sentence)
            if not cleaned:
                continue
            counts["clean"] += 1
            for step in cheap_filters(cleaned, {"file": source, "record": index,
                                                "sentence": j}):
                if isinstance(step, Candidate):
                    cands.append(step)
                else:
                    counts[step] += 1
    out: list[dict[str, Any]] = []
    if cands:
        nlp = _nlp()
        assert _FIRST is not None
        for cand, doc in zip(cands, nlp.pipe([c.sentence for c in cands], batch_size=64),
                             strict=True):
            passed, record = spacy_stages(doc, cand, _FIRST)
            counts.update(passed)
            if record is None:
                continue
            src = record["source"]
            rng = random.Random(f"{seed}:{src['file']}:{src['record']}:{src['sentence']}")
            labelled, why = neutralize_record(record, rng, 0)
            if labelled is not None:
                counts["labelled"] += 1
                out.append(labelled)
            else:
                record["label_status"] = why
                out.append(record)
    return out, dict(counts)


def _chunks(records: Iterable[Record], size: int) -> Iterator[list[Record]]:
    chunk: list[Record] = []
    for r in records:
        chunk.append(r)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _run_local(chunks: Iterator[list[Record]], workers: int, seed: int
               ) -> Iterator[tuple[list[dict[str, Any]], dict[str, int]]]:
    if workers <= 1:
        for chunk in chunks:
            yield process_chunk(chunk, seed)
        return
    window = 2 * workers
    with worker_pool(workers) as pool:
        pending: list[AsyncTask[tuple[list[dict[str, Any]], dict[str, int]]]] = []
        for chunk in chunks:
            pending.append(pool.apply_async(process_chunk, (chunk, seed)))
            if len(pending) >= window:
                yield pending.pop(0).get()
        for result in pending:
            yield result.get()


def _run_dask(chunks: Iterator[list[Record]], scheduler: str | None, seed: int, window: int
              ) -> Iterator[tuple[list[dict[str, Any]], dict[str, int]]]:
    client = dask_client(scheduler)
    import dask.bag as db

    with client:
        batch: list[list[Record]] = []
        for chunk in [*chunks, None]:
            if chunk is not None:
                batch.append(chunk)
            if batch and (chunk is None or len(batch) >= window):
                bag = db.from_sequence(batch, npartitions=len(batch))
                yield from bag.map(process_chunk, seed).compute(scheduler=client.get)
                batch = []


def mine(inputs: Sequence[str | Path], out: str | Path, *, engine: str = "local",
         workers: int = 1, scheduler: str | None = None, field: str | None = None,
         chunk_size: int = 200, seed: int = 0, progress: bool = True) -> dict[str, Any]:
    paths = [Path(p) for p in inputs]
    chunks = _chunks(read_records(paths, field=field), chunk_size)
    if engine == "local":
        results = _run_local(chunks, workers, seed)
    elif engine == "dask":
        results = _run_dask(chunks, scheduler, seed, window=max(2, 2 * workers))
    else:
        raise UsageError(f"unknown engine {engine!r}; choose local or dask")
    funnel: Counter[str] = Counter()
    n_out = 0
    with atomic_write(out) as fh, tqdm(desc="knowref mine", unit="rec", disable=not progress) \
            as bar:
        for records, counts in results:
            funnel.update(counts)
            for rec in records:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
                n_out += 1
            bar.update(counts.get("records", 0))
        if not funnel.get("records"):  # inside the write: nothing is kept
            raise RefbenchError(f"the input(s) hold no records: {', '.join(map(str, paths))}")
    return {"inputs": [str(p) for p in paths], "output": str(out), "engine": engine,
            "workers": workers, "candidates": n_out,
            "funnel": {s: funnel.get(s, 0) for s in STAGES},
            "undecodable": funnel.get("undecodable", 0)}
