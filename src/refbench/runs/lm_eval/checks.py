"""What an lm-eval samples line must hold, field by field, and when samples that do not cover
their data may stand as a partial run: the checks ``results import-lm-eval`` makes at its
boundary, before matching samples to instances.

Every field refbench reads has its type checked where the line is read (``doc_id`` a
non-negative integer, ``doc`` an object whose ``id`` is a string or integer,
``filtered_resps`` a list of lists, the hashes strings, ``acc`` a number), so a damaged line
is one error naming the file, line and field instead of a ``TypeError`` or a silent mismatch.

Samples for only the first n of N instances are a partial run only when lm-eval recorded a
``--limit`` that makes exactly n (``config.limit`` in its ``results_*.json``: a count, or a
fraction of the documents rounded up as lm-eval does); otherwise the import is refused,
naming the instances that have no sample.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.inputs import json_type
from refbench.core.types import ChoiceInstance
from refbench.runs.lm_eval.docs import HASHES


def check_sample(row: dict[str, Any], path: Path, line: int) -> None:
    """One samples line's fields, typed (see the module docstring)."""
    def bad(field: str, expected: str, value: Any) -> RefbenchError:
        return RefbenchError(f"field {field!r}: expected {expected}, found {json_type(value)}",
                             path=path, line=line)

    doc_id = row["doc_id"]
    if not isinstance(doc_id, int) or isinstance(doc_id, bool):
        raise bad("doc_id", "an integer (the document's position)", doc_id)
    if doc_id < 0:
        raise bad("doc_id", "an integer 0 or more", doc_id)
    if "doc" in row:
        doc = row["doc"]
        if not isinstance(doc, dict):
            raise bad("doc", "an object (the logged document)", doc)
        if "id" in doc and (not isinstance(doc["id"], str | int) or isinstance(doc["id"], bool)):
            raise bad("doc.id", "a string or an integer", doc["id"])
    for k, resp in enumerate(row["filtered_resps"]):
        if not isinstance(resp, list | tuple) or not resp:
            raise bad(f"filtered_resps[{k}]", "a list [log-likelihood, is_greedy]", resp)
    for key in HASHES:
        if key in row and not isinstance(row[key], str):
            raise bad(key, "a string", row[key])
    if "acc" in row and (not isinstance(row["acc"], int | float) or isinstance(row["acc"], bool)):
        raise bad("acc", "a number", row["acc"])


def _names(missing: Sequence[ChoiceInstance]) -> str:
    shown = ", ".join(inst.id for inst in missing[:3])
    more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
    return f"missing: {shown}{more}"


def check_coverage(everything: Sequence[ChoiceInstance], n: int, info: dict[str, Any],
                   samples: Path, data: Path) -> None:
    """Samples for the first ``n`` of ``everything`` stand as a partial run only when
    lm-eval's results (``info``, from :func:`~refbench.runs.lm_eval.samples.run_info`)
    record a ``--limit`` that makes exactly ``n``; else one error naming what is missing."""
    total = len(everything)
    if n >= total:
        return
    missing = everything[n:]
    limit = info.get("limit")
    if not isinstance(limit, int | float) or isinstance(limit, bool) or limit <= 0:
        where = (f"config.limit in {info['results']}" if info.get("results")
                 else "no results_*.json beside the samples")
        raise RefbenchError(f"the samples cover {n} of {total} instances of {data}, and "
                            f"lm-eval recorded no --limit ({where}): the samples file is cut "
                            f"short or not of this data; {_names(missing)}", path=samples)
    expected = min(total, math.ceil(total * limit) if limit < 1 else int(limit))
    if n != expected:
        raise RefbenchError(f"lm-eval ran with --limit {limit} ({expected} of {total} "
                            f"instances of {data}) but the samples cover {n}: the samples file "
                            f"is cut short; {_names(everything[n:expected])}", path=samples)
