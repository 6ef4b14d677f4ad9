"""The similarity probe: structure-based reading, known answers, and the same figures whichever
route (CoNLL on disk, native JSONL, in memory) the instances take."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scripts.regen_golden import GOLDEN, TINY, tiny_config

from refbench.core.errors import RefbenchError
from refbench.formats.conll2012 import format_conll, read_conll
from refbench.tasks.kitmus.generate.difficulty import (
    OFFICIAL_PROBE,
    ProbeItem,
    default_encoder,
    expected_accuracy,
    item_from_conll,
    item_from_instance,
    probe_predictions,
    profile_items,
    read_items,
    suite_difficulty,
)
from refbench.tasks.kitmus.generate.instances import build_pools, generate_job
from refbench.tasks.kitmus.generate.resources import load_resources
from refbench.tasks.kitmus.generate.variants import VARIANTS
from tests.conftest import OFFICIAL, needs_shared


def tagged(text: str) -> list[tuple[str, str]]:
    return [tuple(tok.rsplit("/", 1)) for tok in text.split()]  # type: ignore[misc]


# Three instances written for this test. Entities are called "Her" and "He" (tagged NNP) in the
# first two, as census surnames are in the official release; the annotated pronoun is elsewhere.
DOCS: list[tuple[str, list[str], list[list[tuple[int, int, int]]]]] = [
    ("probe:0", [
        "Her/NNP is/VBZ a/DT firefighter/NN ./.",
        "Lund/NNP is/VBZ an/DT accountant/NN ./.",
        "At/IN the/DT pier/NN ,/, Lund/NNP and/CC Her/NNP met/VBD ./.",
        "She/PRP spent/VBD the/DT day/NN putting/VBG out/RP fires/NNS ./.",
    ], [[(0, 0, 0), (2, 6, 6), (3, 0, 0)], [(1, 0, 0), (2, 4, 4)]]),
    ("probe:1", [
        "By/IN profession/NN ,/, He/NNP is/VBZ a/DT dentist/NN ./.",
        "Moss/NNP works/VBZ as/IN a/DT pastry/NN chef/NN ./.",
        "He/NNP and/CC Moss/NNP ran/VBD into/IN each/DT other/JJ ./.",
        "After/IN a/DT day/NN baking/VBG cakes/NNS ,/, ze/PRP was/VBD happy/JJ ./.",
    ], [[(0, 3, 3), (2, 0, 0)], [(1, 0, 0), (2, 2, 2), (3, 6, 6)]]),
    # Labelled against the probe on purpose: the situation is a plumber's, the answer the pilot.
    ("probe:2", [
        "Reyes/NNP is/VBZ a/DT plumber/NN ./.",
        "Oakes/NNP is/VBZ a/DT pilot/NN ./.",
        "Reyes/NNP and/CC Oakes/NNP met/VBD ./.",
        "A/DT bird/NN sang/VBD ./.",
        "They/PRP were/VBD fixing/VBG leaking/VBG pipes/NNS ./.",
    ], [[(0, 0, 0), (2, 0, 0)], [(1, 0, 0), (2, 2, 2), (4, 0, 0)]]),
]


def write_suite(root: Path, docs: list[Any] = DOCS) -> Path:
    path = root / "background-pretrain" / "subtask_2_ents" / "full-text" / "test.v4_gold_conll"
    path.parent.mkdir(parents=True)
    path.write_text("".join(format_conll(doc_id, [tagged(s) for s in sents], clusters)
                            for doc_id, sents, clusters in docs), encoding="utf-8")
    return path


class WordOverlapEncoder:
    """A stand-in encoder: bag-of-words vectors, so answers follow from shared words alone."""

    def encode(self, texts: list[str]) -> Any:
        import torch

        vocab = sorted({w.strip(".,").lower() for t in texts for w in t.split()} - {"a", "an"})
        rows = []
        for t in texts:
            ws = {w.strip(".,").lower() for w in t.split()}
            rows.append([1.0 if v in ws else 0.0 for v in vocab])
        return torch.nn.functional.normalize(torch.tensor(rows), dim=-1)


def test_items_come_from_the_annotation_not_the_spelling(tmp_path: Path) -> None:
    items = read_items(write_suite(tmp_path))
    assert [it.occupations for it in items] == [
        ("accountant", "firefighter"), ("dentist", "pastry chef"), ("plumber", "pilot")]
    assert [it.answer for it in items] == [1, 1, 1]  # "Her", "Moss", "Oakes"
    assert items[0].text == "She spent the day putting out fires."
    assert items[1].text == "After a day baking cakes, ze was happy."
    assert items[2].text == "They were fixing leaking pipes."  # the noise sentence is skipped


def test_probe_logic_with_a_stand_in_encoder(tmp_path: Path) -> None:
    items = [ProbeItem("x", tuple(tagged("He/PRP fixed/VBD a/DT roof/NN ./.")),
                       ("roof mender", "baker", "cook"), 0),
             ProbeItem("y", tuple(tagged("Ze/PRP painted/VBD ./.")), ("painter", "cook"), 1)]
    assert probe_predictions(items, WordOverlapEncoder()) == [0, 0]  # tie: first candidate
    prof = profile_items(items, WordOverlapEncoder())
    assert prof["instances"] == 2 and prof["probe_accuracy"] == 0.5
    assert prof["chance"] == round((1 / 3 + 1 / 2) / 2, 4)
    assert prof["answer_occupation_cue"] == 0.5  # "roof" shares a root with "roof mender"
    assert prof["distractor_occupation_cue"] == 0.5  # "painted" ~ "painter", not the answer


def test_probe_on_a_hand_made_suite_with_minilm(tmp_path: Path) -> None:
    write_suite(tmp_path)
    report = suite_difficulty(tmp_path)
    cell = report["background-pretrain"][2]
    # Right on the firefighter and the pastry chef, wrong (by design) on the mislabelled plumber.
    assert cell["instances"] == 3 and cell["probe_accuracy"] == round(2 / 3, 4)
    assert cell["answer_occupation_cue"] == round(1 / 3, 4)  # "fires" ~ "firefighter"
    assert cell["distractor_occupation_cue"] == 0.0
    assert cell["file"] == "background-pretrain/subtask_2_ents/full-text/test.v4_gold_conll"


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d[:3], "expected exactly one annotated mention after the meet sentence"),
    (lambda d: [d[0], d[1], d[3]], "no sentence mentions two entities"),
])
def test_unreadable_structure_is_a_clear_error(tmp_path: Path, mutate, message) -> None:  # type: ignore[no-untyped-def]
    doc_id, sents, clusters = DOCS[0]
    kept = mutate(list(range(len(sents))))
    new_index = {old: new for new, old in enumerate(kept)}
    docs = [(doc_id, [sents[i] for i in kept],
             [[(new_index[s], a, b) for s, a, b in c if s in new_index] for c in clusters])]
    path = write_suite(tmp_path, docs)
    with pytest.raises(RefbenchError) as info:
        read_items(path)
    assert message in info.value.message and info.value.item == "probe:0"


def test_missing_suite_files_are_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RefbenchError) as info:
        suite_difficulty(tmp_path)
    assert "no full-text CoNLL or native JSONL files" in info.value.message


def test_conll_jsonl_and_memory_give_the_same_items() -> None:
    res = load_resources()
    pools = build_pools(res, seed=TINY["seed"])
    for variant in TINY["variants"]:
        for n in TINY["entities"]:
            sub = GOLDEN / variant / f"subtask_{n}_ents"
            conll = [item_from_conll(d, path="x")
                     for d in read_conll(sub / "full-text" / "test.v4_gold_conll")]
            native = read_items(sub / "test.jsonl")
            memory = [item_from_instance(i) for i in generate_job(
                res, pools, VARIANTS[variant], n=n, split="test", size=TINY["sizes"]["test"],
                seed=TINY["seed"])]
            assert conll == native == memory and len(conll) == TINY["sizes"]["test"]


def test_datasheet_profile_equals_the_probe_on_the_written_files() -> None:
    stats = json.loads((GOLDEN / "stats.json").read_text(encoding="utf-8"))
    on_disk = suite_difficulty(GOLDEN)
    assert stats["difficulty"]["split"] == "test" and tiny_config().splits[-1] == "test"
    for group in stats["difficulty"]["groups"]:
        for variant in group["variants"]:
            for n, prof in group["entities"].items():
                disk = dict(on_disk[variant][int(n)])
                disk.pop("file")
                assert disk == prof, (variant, n)
    assert "## Difficulty: similarity probe" in (GOLDEN / "DATASHEET.md").read_text()


def test_expected_accuracy_is_exact() -> None:
    assert expected_accuracy(59, 59, 4) == 1.0
    assert expected_accuracy(0, 59, 2) == 0.0
    # 3 of 5 others score lower: both distractors must come from those 3 -> C(3,2)/C(5,2).
    assert expected_accuracy(3, 5, 3) == pytest.approx(3 / 10)


@needs_shared(OFFICIAL)
def test_official_release_reads_by_structure() -> None:
    """Official 3-entity test:1849 has an entity called "Her"; a spelling rule sees two pronouns.

    Woodham (soldier), Her (cashier) and Heckler (janitor) meet; "He was relieved ... working
    for the army" is about Woodham.
    """
    path = (OFFICIAL / "released" / "background-train" / "subtask_3_ents" / "full-text"
            / "test.v4_gold_conll.gz")
    items = read_items(path)
    assert len(items) == 2000
    it = items[1849]
    assert it.doc_id.endswith("test:1849")
    assert it.occupations == ("soldier", "cashier", "janitor") and it.answer == 0
    assert it.text.startswith("He was relieved") and it.text.endswith("working for the army.")


@needs_shared(OFFICIAL)
def test_official_probe_figure_at_four_entities() -> None:
    path = (OFFICIAL / "released" / "background-train" / "subtask_4_ents" / "full-text"
            / "test.v4_gold_conll.gz")
    prof = profile_items(read_items(path), default_encoder())
    assert prof["instances"] == 2000 and prof["probe_accuracy"] == OFFICIAL_PROBE[4]


def test_datasheet_section_says_when_the_probe_did_not_run() -> None:
    from refbench.tasks.kitmus.generate.difficulty import difficulty_section

    assert "generated with --no-probe" in "\n".join(difficulty_section({}))
    fictional_only = {"difficulty": {"groups": [], "split": "test"}}
    assert "no variant with real situations" in "\n".join(difficulty_section(fictional_only))


def test_cli_json_and_errors(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    bad = cli("kitmus", "difficulty", str(tmp_path / "nowhere"))
    assert bad.returncode == 2 and bad.stderr.startswith("error E400: ")
    assert "suite folder not found" in bad.stderr and "Traceback" not in bad.stderr
    write_suite(tmp_path)
    good = cli("kitmus", "difficulty", str(tmp_path), "--json")
    assert good.returncode == 0, good.stderr
    report = json.loads(good.stdout)
    assert report["subtasks"]["background-pretrain"]["2"]["probe_accuracy"] == round(2 / 3, 4)
    assert report["official_background_pretrain"]["4"] == OFFICIAL_PROBE[4]
