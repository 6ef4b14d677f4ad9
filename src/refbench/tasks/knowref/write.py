"""Writers back to KnowRef's two formats, from choice instances.

JSON: ``sentence_with_pronoun`` with the expression in square brackets, candidates as token
lists, ``correct_candidate_idx``/``correct_candidate``. TSV: two rows per instance, the sentence
split where the expression was, with each candidate in its place; ``label`` 1 on the correct row.
The TSV has no pronoun, so TSV -> JSON brackets the blank ``_``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.io import atomic_write, format_name
from refbench.core.types import ChoiceInstance
from refbench.tasks.knowref.read import TSV_COLUMNS


def to_json_record(inst: ChoiceInstance) -> dict[str, Any]:
    if inst.expression_offset is None or len(inst.candidates) != 2:
        raise RefbenchError("a KnowRef instance needs an expression in the text and two "
                            "candidates", item=inst.id)
    a = inst.expression_offset
    b = a + len(inst.expression)
    rec: dict[str, Any] = {
        "sentence_with_pronoun": f"{inst.context[:a]}[{inst.expression}]{inst.context[b:]}",
        "candidate0": [inst.candidates[0].text],
        "candidate1": [inst.candidates[1].text],
        "original_sentence": [inst.context],
    }
    if inst.gold is not None:
        rec["correct_candidate_idx"] = inst.gold
        rec["correct_candidate"] = [inst.candidates[inst.gold].text]
    return rec


def to_tsv_rows(inst: ChoiceInstance, index: str) -> list[dict[str, str]]:
    if inst.expression_offset is None or len(inst.candidates) != 2 or inst.gold is None:
        raise RefbenchError("a KnowRef TSV row pair needs an expression, two candidates and a "
                            "gold answer", item=inst.id)
    a = inst.expression_offset
    rest = inst.context[a + len(inst.expression):].lstrip(" ")
    prefix = inst.context[:a]
    return [{"index": index, "sentence1": f"{prefix}{c.text}", "sentence2": rest,
             "label": "1" if k == inst.gold else "0",
             "candidate0": inst.candidates[0].text, "candidate1": inst.candidates[1].text}
            for k, c in enumerate(inst.candidates)]


def write_knowref(instances: Iterable[ChoiceInstance], out: str | Path) -> int:
    out = Path(out)
    name = format_name(out)
    if not name.endswith((".json", ".tsv")):
        raise RefbenchError("the output must end in .json or .tsv", path=out)
    items = list(instances)
    with atomic_write(out) as fh:
        if name.endswith(".json"):
            json.dump([to_json_record(i) for i in items], fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        else:
            fh.write("\t".join(TSV_COLUMNS) + "\n")
            for k, inst in enumerate(items):
                index = str(inst.metadata.get("index", k))
                for row in to_tsv_rows(inst, index):
                    fh.write("\t".join(row[c] for c in TSV_COLUMNS) + "\n")
    return len(items)
