"""KnowRef: readers, switching hard cases, consistency, gender-cue removal, mining, Dask."""

from __future__ import annotations

import bz2
import json
import random
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.tasks.choices import read_choices
from refbench.tasks.knowref.metrics import evaluate_knowref
from refbench.tasks.knowref.mine import mine, process_chunk
from refbench.tasks.knowref.mine_filters import Candidate, cheap_filters, clean
from refbench.tasks.knowref.neutralize import neutralize_record, neutralize_records
from refbench.tasks.knowref.switch import switch_file, switch_text
from refbench.tasks.lookup import get_task
from tests.conftest import run_cli

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "knowref"


def test_json_and_tsv_readers() -> None:
    js = list(read_choices(FIX / "knowref_sample.json"))
    assert [i.id for i in js] == ["knowref:0", "knowref:1", "knowref:2"]
    assert js[1].candidates[0].text == "Retired engineer Mara Lindqvist"  # token list joined
    assert js[0].context.split()[7] == "he" and js[0].expression_offset == 40
    assert js[0].gold == 1
    ts = list(read_choices(FIX / "train.tsv"))
    assert [i.gold for i in ts] == [1, 0]
    assert ts[0].context == "Ingrid is sketching Beatrix , but every long sitting tires _ ."
    assert ts[0].with_expression_replaced(1).endswith("tires Beatrix .")


def test_bad_input(tmp_path: Path) -> None:
    p = tmp_path / "k.json"
    p.write_text(json.dumps([{"sentence_with_pronoun": "No pronoun here .", "candidate0": ["A"],
                              "candidate1": ["B"], "correct_candidate_idx": 0}]))
    with pytest.raises(RefbenchError) as info:
        list(read_choices(p, task=get_task("knowref")))
    assert "no [pronoun]" in info.value.message and info.value.item.startswith("instance 0")
    t = tmp_path / "k.tsv"
    t.write_text((FIX / "train.tsv").read_text().replace("\t.\t0\tIngrid", "\t0\tIngrid", 1))
    r = run_cli("run", "--model", "first", "--data", str(t), "--out", str(tmp_path / "o"),
                "--no-store")
    assert r.returncode == 2 and f"{t}:2" in r.stderr and "columns" in r.stderr


@pytest.mark.parametrize(
    ("text", "a", "b", "expected"),
    [
        ("Halvorsen sought Okafor 's advice , but [he] left .", "Halvorsen", "Okafor",
         "Okafor sought Halvorsen 's advice , but [he] left ."),
        ("Marcus thanked Marc because [she] had lent him the car .", "Marcus", "Marc",
         "Marc thanked Marcus because [she] had lent him the car ."),
        ("Mara Lindqvist met Osei , and Osei impressed [him] .", "Mara Lindqvist", "Osei",
         "Osei met Mara Lindqvist , and Mara Lindqvist impressed [him] ."),
        ("Retired engineer Mara Lindqvist met Lindqvist , who saw [him] .",
         "Retired engineer Mara Lindqvist", "Lindqvist",
         "Lindqvist met Retired engineer Mara Lindqvist , who saw [him] ."),
        ("Ann , not Bo , called ; Bo ( Ann 's friend ) ignored [her] .", "Ann", "Bo",
         "Bo , not Ann , called ; Ann ( Bo 's friend ) ignored [her] ."),
    ],
)
def test_switching_hard_cases(text: str, a: str, b: str, expected: str) -> None:
    res = switch_text(text, a, b)
    assert res.text == expected
    assert switch_text(expected, a, b).text == text  # switching twice is the identity


@pytest.mark.parametrize(
    ("text", "reason"),
    [("Okafor's friend met Okafor and Halvorsen .", "glued"),
     ("Halvorsen met Bob .", "does not occur as whole tokens")],
)
def test_unswitchable_instances_are_reported(text: str, reason: str) -> None:
    res = switch_text(text, "Okafor", "Halvorsen")
    assert res.text is None and reason in (res.reason or "")


def test_switch_files_keep_format(tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    rep = switch_file(FIX / "knowref_sample.json", out)
    assert (rep["switched"], rep["skipped"]) == (3, 0)
    data = json.loads(out.read_text())
    assert data[0]["sentence_with_pronoun"].startswith("Okafor sought Halvorsen 's")
    assert data[0]["correct_candidate_idx"] == 0 and data[0]["correct_candidate"] == ["Halvorsen"]
    assert data[0]["candidate0"] == ["Halvorsen"] and data[0]["switched"] is True
    back = tmp_path / "b.json"
    switch_file(out, back)
    again = json.loads(back.read_text())
    orig = json.loads((FIX / "knowref_sample.json").read_text())
    assert [(x["sentence_with_pronoun"], x["correct_candidate_idx"]) for x in again] == [
        (x["sentence_with_pronoun"], x["correct_candidate_idx"]) for x in orig]
    tsv = tmp_path / "s.tsv"
    switch_file(FIX / "train.tsv", tsv)
    rows = [line.split("\t") for line in tsv.read_text().splitlines()]
    assert rows[0] == ["index", "sentence1", "sentence2", "label", "candidate0", "candidate1"]
    assert rows[1][1] == "Beatrix is sketching Ingrid , but every long sitting tires Ingrid"
    assert [r[3] for r in rows[1:3]] == ["1", "0"]
    aug = tmp_path / "a.tsv"
    r = run_cli("knowref", "augment", str(FIX / "train.tsv"), "--out", str(aug), "--json")
    assert r.returncode == 0 and len(aug.read_text().splitlines()) == 1 + 8


def _answers(path: Path, answers: dict[str, int]) -> Path:
    path.write_text("".join(json.dumps({"id": k, "answer": v}) + "\n"
                            for k, v in answers.items()))
    return path


def test_consistency_hand_worked(tmp_path: Path) -> None:
    gold = FIX / "knowref_sample.json"  # gold answers 1, 0, 0
    p = _answers(tmp_path / "p.jsonl", {"knowref:0": 1, "knowref:1": 1, "knowref:2": 0})
    # on the switched copy the gold flips to 0, 1, 1
    p2 = _answers(tmp_path / "p2.jsonl", {"knowref:0:switched": 0, "knowref:1:switched": 0,
                                          "knowref:2:switched": 0})
    r = evaluate_knowref(gold, p, p2)
    assert r["accuracy"] == pytest.approx(2 / 3)
    s = r["switched"]
    # instance 0: 1 -> 0, right both times; 1: 1 -> 0, wrong both times; 2: 0 -> 0, inconsistent
    assert s["breakdown"] == {"consistently_correct": 1, "consistently_wrong": 1,
                              "inconsistent": 1}
    assert r["consistency"] == pytest.approx(2 / 3)
    assert s["accuracy"] == pytest.approx(1 / 3)
    cli = run_cli("evaluate", "--task", "knowref", "--gold", str(gold), "--pred", str(p),
                  "--switched-pred", str(p2))
    assert cli.returncode == 0 and "consistency 0.667" in cli.stdout


def test_cluster_predictions_decisions(tmp_path: Path) -> None:
    gold = FIX / "knowref_sample.json"
    inst = list(read_choices(gold))
    docs = []
    for i, (links) in enumerate(([0], [0, 1], [])):
        words = inst[i].context.split(" ")
        pron = len(inst[i].context[: inst[i].expression_offset].split())
        clusters = []
        for k in links:
            toks = inst[i].candidates[k].text.split()
            start = next(j for j in range(len(words)) if words[j:j + len(toks)] == toks)
            clusters.append([[start, start + len(toks) - 1], [pron, pron]])
        docs.append({"doc_key": inst[i].id, "sentences": [words], "clusters": clusters})
    p = tmp_path / "p.jsonlines"
    p.write_text("".join(json.dumps(d) + "\n" for d in docs))
    r = evaluate_knowref(gold, p)
    assert r["decisions"] == {"correct": 0, "incorrect": 1, "both_antecedents": 1,
                              "no_decision": 1}
    assert r["task_specific_accuracy"] == 0.0 and r["coverage"] == pytest.approx(1 / 3)


def test_neutralize_counts_and_whole_tokens() -> None:
    recs = [
        {"sentence_with_pronoun": "John praised Mary and Johnny because [she] won .",
         "candidate0": ["John"], "candidate1": ["Mary"]},
        {"sentence_with_pronoun": "John met Mark because [he] called .", "candidate0": ["John"],
         "candidate1": ["Mark"]},
        {"sentence_with_pronoun": "Jordan met Mary because [she] called .",
         "candidate0": ["Jordan"], "candidate1": ["Mary"]},
        {"sentence_with_pronoun": "John met Mary because [they] called .",
         "candidate0": ["John"], "candidate1": ["Mary"]},
    ]
    out, rep = neutralize_records(recs, seed=1)
    assert (rep["labelled"], rep["skipped"], rep["ambiguous"]) == (1, 2, 1)
    new = out[0]
    assert new["correct_candidate_idx"] == 1
    assert "Johnny" in new["sentence_with_pronoun"]  # untouched: whole tokens only
    replaced = new["label_source"]["replaced"][1]
    assert new["sentence_with_pronoun"].startswith(f"{replaced} praised Mary")
    assert new["candidate0"] == [replaced]
    again, _ = neutralize_records(recs, seed=1)
    assert again == out
    other, _ = neutralize_record(recs[0], random.Random(99), 0)
    assert other is not None


@pytest.mark.parametrize(
    ("sentence", "last_stage"),
    [
        ("John Smith called Mary Jones because he needed advice about the garden .",
         "pronoun_after_only"),
        ("Short one , he said .", None),
        ("john Smith called Mary Jones because he needed advice about the garden today .",
         "length_9_33"),
        ("John Smith computed 3 + 4 for Mary Jones because he needed the sum today .",
         "uppercase_start"),
        ("John Smith called Mary Jones , because he needed advice but she was out .",
         "no_math"),
        ("It was the one because he needed advice about the garden today .",
         "one_connective"),
        ("He called Mary Jones because he needed advice about the garden today .",
         "two_words_before"),
    ],
)
def test_each_cheap_filter(sentence: str, last_stage: str | None) -> None:
    steps = list(cheap_filters(sentence, {}))
    names = [s for s in steps if isinstance(s, str)]
    assert (names[-1] if names else None) == last_stage
    assert any(isinstance(s, Candidate) for s in steps) == (last_stage == "pronoun_after_only")


def test_clean_and_spacy_stages() -> None:
    assert clean("<b>Jos&eacute;</b> met [Ann](http://x.y) at http://a.b **now**") == \
        "Jose met Ann at now"
    chunk = [("doc", 0, "John Smith called Mary Jones because he needed advice about the "
                        "garden. The table is green because it was painted.")]
    records, counts = process_chunk(chunk)
    assert counts["records"] == 1 and counts["sentences"] == 2
    assert counts["two_noun_phrases"] == 1 and counts["both_persons"] == 1
    assert counts["labelled"] == 1
    rec = records[0]
    assert rec["sentence_with_pronoun"].count("[") == 1 and "[he]" in rec["sentence_with_pronoun"]
    assert rec["correct_candidate_idx"] == 0 and rec["source"] == {
        "file": "doc", "record": 0, "sentence": 0}


def _corpus(tmp_path: Path) -> Path:
    lines = []
    for i in range(40):
        lines.append(json.dumps({"body": f"Story {i}. John Smith called Mary Jones because he "
                                         "needed advice about the garden. It rained."}))
    lines.append("{not json")
    p = tmp_path / "corpus.jsonl.bz2"
    data = ("\n".join(lines) + "\n").encode() + b"\xff\xfe broken bytes\n"
    p.write_bytes(bz2.compress(data))
    return p


def test_mine_local_and_workers_agree(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    one = mine([corpus], tmp_path / "one.jsonl", chunk_size=7, progress=False)
    two = mine([corpus], tmp_path / "two.jsonl", chunk_size=7, workers=2, progress=False)
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    assert one["funnel"] == two["funnel"]
    assert one["undecodable"] == 2 and one["funnel"]["records"] == 42
    assert one["candidates"] == 40 and one["funnel"]["labelled"] == 40


def test_dask_local_cluster_equals_local_engine(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    corpus = _corpus(tmp_path)
    local = mine([corpus], tmp_path / "local.jsonl", chunk_size=10, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, host="127.0.0.1") as cluster:
        report = mine([corpus], tmp_path / "dask.jsonl", engine="dask",
                      scheduler=cluster.scheduler_address, chunk_size=10, progress=False)
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert report["funnel"] == local["funnel"]


def test_tsv_release_quirks_and_writers(tmp_path: Path) -> None:
    from refbench.tasks.knowref.write import write_knowref

    t = tmp_path / "q.tsv"
    t.write_text(
        "index\tsentence1\tsentence2\tlabel\tcandidate0\tcandidate1\n"
        # split after the first mention in the second row (as the released files do)
        "0\tHalvorsen sought Okafor 's advice , but Halvorsen\tlong remained silent .\t0\tHalvorsen"
        "\tOkafor\n"
        "0\tHalvorsen sought Okafor\t's advice , but Okafor long remained silent .\t0\tHalvorsen"
        "\tOkafor\n"
        # two blanks (the released instance with two bracketed pronouns)
        "1\tSam met Carl , if Sam\twins, he treats Sam well .\t1\tSam\tCarl\n"
        "1\tSam met Carl\t, if Carl wins, he treats Carl well .\t0\tSam\tCarl\n"
        # candidates that contain each other
        "2\tRose 's friend Julie arrives , but Rose\tis out .\t1\tRose\tRose 's friend Julie\n"
        "2\tRose 's friend Julie arrives , but Rose 's friend Julie\tis out .\t0\tRose"
        "\tRose 's friend Julie\n")
    xs = list(read_choices(t))
    assert xs[0].context == "Halvorsen sought Okafor 's advice , but _ long remained silent ."
    assert xs[0].gold is None  # labels 0/0: no gold (the released test.tsv)
    assert xs[1].metadata["blanks"] == 2 and xs[1].gold == 0
    assert xs[2].context == "Rose 's friend Julie arrives , but _ is out ."
    js = list(read_choices(FIX / "knowref_sample.json"))
    out = tmp_path / "t.tsv"
    write_knowref(js, out)
    back = list(read_choices(out))
    assert [(b.gold, [c.text for c in b.candidates]) for b in back] == [
        (j.gold, [c.text for c in j.candidates]) for j in js]
    assert back[0].with_expression_replaced(1) == js[0].with_expression_replaced(1)
    jout = tmp_path / "t.json"
    write_knowref(js, jout)
    assert [(i.context, i.gold) for i in read_choices(jout)] == [(i.context, i.gold) for i in js]
