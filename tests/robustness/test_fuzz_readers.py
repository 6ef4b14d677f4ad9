"""Fuzzing the readers: random mutations of real fixture lines (a field replaced by any JSON
value or removed, a cell or token rewritten, bytes flipped, lines dropped or repeated). Every
reader must either read the file or raise RefbenchError; any other exception is a bug.

``REFBENCH_FUZZ_EXAMPLES`` sets the examples per reader (default 60; derandomized, so CI runs
are reproducible; raise it locally for a deeper search).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refbench.core.errors import RefbenchError
from tests.robustness.support import make_support

EXAMPLES = int(os.environ.get("REFBENCH_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**9, 10**9) | st.floats()
    | st.text(max_size=12) | st.sampled_from(["", "_", "[she]", "np0", "-1", "TRUE", "0"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=4),
    max_leaves=6)
CELLS = (st.text(max_size=12) | st.sampled_from(["-198", "0", "99999", '"', '"a"b', "\t", "",
                                                  "TRUE", "maybe", "(1", "1)", "(2)|(3", "_"])
         | st.integers(-10**6, 10**6).map(str))

_support: Path | None = None


def support() -> Path:
    global _support
    if _support is None:
        _support = make_support(Path(tempfile.mkdtemp(prefix="refbench-fuzz-")) / "s")
    return _support


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:6]):
            out += _paths(v, (*prefix, i))
    return out


def mutate_json(data: st.DataObject, obj: Any) -> Any:
    """Replace a random part of ``obj`` by any JSON value, or delete it."""
    paths = _paths(obj)
    path = paths[data.draw(st.integers(0, len(paths) - 1))]
    if not path:
        return data.draw(JSON_VALUES)
    parent = obj
    for k in path[:-1]:
        parent = parent[k]
    if data.draw(st.booleans()) and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = data.draw(JSON_VALUES)
    return obj


def mutate_lines(data: st.DataObject, text: str, *, json_lines: bool) -> str:
    lines = text.splitlines()
    for _ in range(data.draw(st.integers(1, 3))):
        if not lines:
            break
        i = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["field", "field", "cell", "drop", "repeat",
                                            "bytes"]))
        if action == "field" and json_lines:
            with contextlib.suppress(json.JSONDecodeError):
                lines[i] = json.dumps(mutate_json(data, json.loads(lines[i])))
        elif action in ("cell", "field"):
            sep = "\t" if "\t" in lines[i] else " "
            cells = lines[i].split(sep)
            cells[data.draw(st.integers(0, len(cells) - 1))] = data.draw(CELLS)
            lines[i] = sep.join(cells)
        elif action == "drop":
            del lines[i]
        elif action == "repeat":
            lines.insert(i, lines[i])
        else:
            raw = bytearray(lines[i].encode("utf-8", errors="surrogateescape"))
            if raw:
                raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
            lines[i] = raw.decode("utf-8", errors="surrogateescape")
    return "\n".join(lines) + "\n"


def _choices(task: str | None = None) -> Callable[[Path], Any]:
    from refbench.tasks.choices import read_choices
    from refbench.tasks.lookup import get_task

    return lambda p: list(read_choices(p, task=get_task(task) if task else None))


def _kitmus_preds(p: Path) -> Any:
    from refbench.tasks.kitmus.score.evaluate import evaluate_files

    return evaluate_files(support() / "kitmus.jsonl", [p], bootstrap=0)


def _tne(p: Path) -> Any:
    from refbench.tasks.tne.read import read_documents

    return read_documents(p)


def _tne_preds(p: Path) -> Any:
    from refbench.tasks.tne.metrics import evaluate_tne
    from refbench.tasks.tne.predictions import read_predictions
    from refbench.tasks.tne.read import read_documents

    docs = read_documents(support() / "tne.jsonl")
    return evaluate_tne(docs, read_predictions(p, {d.id: d for d in docs}))


def _knowref_eval(p: Path) -> Any:
    from refbench.tasks.knowref.metrics import evaluate_knowref

    return evaluate_knowref(support() / "knowref.json", p)


def _gap_score(p: Path) -> Any:
    from refbench.tasks.gap.score import score_gap

    return score_gap(p, support() / "gap-system.tsv")


def _alt_check(p: Path) -> Any:
    from refbench.tasks.altentities.check import check_files

    return check_files([p])


def _entities(p: Path) -> Any:
    from refbench.tasks.altentities.sampling import load_entities, sample_pairs

    return list(sample_pairs(load_entities([p]), method="uniform", n=3))


def _switch(p: Path) -> Any:
    from refbench.tasks.knowref.switch import switch_file

    return switch_file(p, p.with_name("out" + p.suffix))


def _report(p: Path) -> Any:
    from refbench.reporting.results import load_results
    from refbench.reporting.tables import generic_tables
    from refbench.tasks.kitmus.present.tables import kitmus_cells, kitmus_table

    data = load_results([p])
    cells, chance = kitmus_cells(data, "pronoun_accuracy")
    return kitmus_table(cells, chance) if cells else generic_tables(data)


# (reader name, support file, file name, reader, whole-document JSON instead of lines)
READERS: list[tuple[str, str, str, Callable[[Path], Any], bool]] = [
    ("kitmus native", "kitmus.jsonl", "g.jsonl", _choices(), False),
    ("kitmus conll", "kitmus.v4_gold_conll", "g.v4_gold_conll", _choices(), False),
    ("kitmus jsonlines", "kitmus.jsonlines", "g.jsonlines", _choices("kitmus"), False),
    ("kitmus gap tsv", "kitmus.tsv", "g.tsv", _choices("kitmus"), False),
    ("kitmus answers", "kitmus-answers.jsonl", "p.jsonl", _kitmus_preds, False),
    ("gap gold", "gap.tsv", "g.tsv", _gap_score, False),
    ("knowref json", "knowref.json", "k.json", _choices("knowref"), True),
    ("knowref tsv", "knowref.tsv", "k.tsv", _choices("knowref"), False),
    ("knowref answers", "knowref-answers.jsonl", "p.jsonl", _knowref_eval, False),
    ("knowref switch", "knowref.json", "k.json", _switch, True),
    ("winograd", "wsc.jsonl", "w.jsonl", _choices("winograd"), False),
    ("altentities", "alt.json", "a.json", _choices("altentities"), True),
    ("altentities check", "alt.json", "a.json", _alt_check, True),
    ("altentities entities", "entities.jsonl", "e.jsonl", _entities, False),
    ("tne documents", "tne.jsonl", "d.jsonl", _tne, False),
    ("tne predictions", "tne-pred.jsonl", "p.jsonl", _tne_preds, False),
    ("report inputs", "result.json", "r.json", _report, True),
]


@pytest.mark.parametrize(("name", "valid", "fname", "reader", "whole"), READERS,
                         ids=[r[0] for r in READERS])
@FUZZ
@given(data=st.data())
def test_reader_raises_refbench_error_or_reads(name: str, valid: str, fname: str,
                                               reader: Callable[[Path], Any], whole: bool,
                                               data: st.DataObject) -> None:
    text = (support() / valid).read_text()
    if whole:
        mutated = json.dumps(mutate_json(data, json.loads(text)))
    else:
        mutated = mutate_lines(data, text, json_lines=fname.endswith(("l", ".jsonlines")))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / fname
        path.write_bytes(mutated.encode("utf-8", errors="surrogateescape"))
        with contextlib.suppress(RefbenchError):  # anything else fails the test
            reader(path)
