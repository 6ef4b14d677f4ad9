"""Knowledge ablations (``--task-arg ablate=...``): the same instances, candidates and answers,
with the knowledge sentences the option names removed from the text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError, UsageError
from refbench.tasks.kitmus.native import read_native
from refbench.tasks.kitmus.score.choice import read_kitmus_choices
from tests.conftest import cli_ok
from tests.models.conftest import DATA

NATIVE = DATA["kitmus-native"]


def _sentences(path: Path, roles: set[str]) -> list[list[str]]:
    from refbench.formats.detok import detokenize

    return [[detokenize([w for w, _ in s.tokens])[0] for s in inst.sentences if s.role in roles]
            for inst in read_native(path)]


@pytest.mark.parametrize(("ablate", "removed"), [
    ("background", {"background_knowledge"}), ("entity", {"entity_knowledge"}),
    ("both", {"background_knowledge", "entity_knowledge"})])
def test_ablation_removes_exactly_the_knowledge_sentences(ablate: str, removed: set[str]) -> None:
    full = list(read_kitmus_choices(NATIVE))
    cut = list(read_kitmus_choices(NATIVE, ablate=ablate))
    gone = _sentences(NATIVE, removed)
    assert len(cut) == len(full) and all(g for g in gone)  # the fixture states both kinds
    for a, b, sentences in zip(full, cut, gone, strict=True):
        assert (a.id, a.gold, [c.text for c in a.candidates]) == \
            (b.id, b.gold, [c.text for c in b.candidates])
        assert b.context[b.expression_offset:].startswith(b.expression)
        for sentence in sentences:
            assert sentence in a.context and sentence not in b.context
        # what is left is the full text with those sentences taken out, in order
        rest = a.context
        for sentence in sentences:
            rest = rest.replace(sentence + " ", "", 1)
        assert rest == b.context


def test_ablation_needs_native_jsonl() -> None:
    with pytest.raises(RefbenchError, match="ablate=entity needs KITMUS native JSONL"):
        list(read_kitmus_choices(DATA["kitmus-conll"], ablate="entity"))


def test_an_ablated_run_records_its_reader_option(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    cli_ok(capsys, "run", "--model", "first", "--data", NATIVE, "--task-arg", "ablate=both",
           "--out", out, "--json", "--quiet")
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["reader_options"] == {"ablate": "both"}
    assert metrics["pronoun_accuracy"] == metrics["accuracy"]


def test_an_ablated_run_is_never_taken_for_the_full_text_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same model on the same file, with and without an ablation: other data. The report
    names the ablated run apart (both figures shown, none merged into one cell), the model
    card gives it its own column, and the paired tests still pair the two instance by
    instance."""
    import refbench
    from refbench.reporting.card import build_card

    for name, args in (("full", ()), ("cut", ("--task-arg", "ablate=entity"))):
        cli_ok(capsys, "run", "--model", "random", "--data", NATIVE, *args, "--out",
               tmp_path / name, "--quiet", "--no-store")
    table = cli_ok(capsys, "report", tmp_path / "full", tmp_path / "cut")
    assert "| random: 3 ent. | random [ablate=entity]: 3 ent. |" in table
    full, cut = (refbench.Result.read(tmp_path / n) for n in ("full", "cut"))
    assert full.data.key != cut.data.key and full.system.key == cut.system.key
    card = build_card([full, cut])
    assert not any("duplicate" in n for n in card.notes)
    assert len({r["benchmark"] for r in card.records()}) == 2
    # the same from Python: task_args= is --task-arg, checked against the task's options
    here = refbench.run("random", NATIVE, store=None, progress=False)
    ablated = refbench.run("random", NATIVE, store=None, progress=False,
                           task_args={"ablate": "entity"})
    assert isinstance(here, refbench.Result) and isinstance(ablated, refbench.Result)
    assert ablated.data.key == cut.data.key and here.data.key == full.data.key
    assert [r["correct"] for r in ablated.rows] == [r["correct"] for r in here.rows]
    pair, = refbench.compare([here, ablated]).pairs
    assert pair.n == full.coverage.n and (pair.a, pair.b) == ("random", "random [ablate=entity]")
    with pytest.raises(UsageError, match="ablate"):
        refbench.run("random", NATIVE, store=None, progress=False, task_args={"ablate": "x"})
