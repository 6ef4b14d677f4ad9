"""TNE span-pair model: training, exact resume at any step, safe checkpoints, model folders
that are missing or broken, the train file's null fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError
from refbench.tasks.tne.read import PREP_ID, document_from_json, read_tne
from tests.conftest import SHARED, needs_shared, run_cli
from tests.tasks.tne.test_tne import DOC, write_docs

TRAIN = SHARED / "data" / "tne" / "train-reconstructed-v1.1.jsonl.gz"


@needs_shared(TRAIN)
def test_train_file_reads_with_its_null_fields() -> None:
    """The reconstructed train split has null ``np_type`` everywhere and null ``source`` in
    709 documents (see its RECONSTRUCTED.md): read as 'unknown', every document is kept."""
    docs = list(read_tne(TRAIN))
    assert len(docs) == 3988 and all(d.relations for d in docs)
    assert sum(d.source == "unknown" for d in docs) == 709
    assert {t for d in docs for _, _, t in d.clusters} == {"unknown"}


def second_doc() -> dict:  # type: ignore[type-arg]
    doc = json.loads(json.dumps(DOC))
    doc["id"] = "d2"
    doc["np_relations"] = [{"anchor": "np5", "complement": "np4", "preposition": "in"},
                           {"anchor": "np2", "complement": "np3", "preposition": "of"}]
    return doc  # type: ignore[no-any-return]


def test_reader_accepts_null_np_type_and_source() -> None:
    doc = json.loads(json.dumps(DOC))
    doc["coref"][0]["np_type"] = None
    doc["metadata"]["source"] = None
    d = document_from_json(doc)
    assert d.clusters == [("cc0", ("np4",), "unknown")]
    assert d.source == "unknown"


def test_train_resume_predict_and_enrich(tmp_path: Path, tiny_encoder: Path) -> None:
    from functools import partial

    from refbench.tasks.tne.models.model import TneModel
    from refbench.tasks.tne.models.train import train_tne as train_any

    train_tne = partial(train_any, encoder=str(tiny_encoder))
    docs = [document_from_json(DOC), document_from_json(second_doc())]
    whole = tmp_path / "whole"
    report = train_tne(docs, docs[:1], whole, epochs=2, warmup_steps=2, checkpoint_every=0,
                       progress=False)
    assert report["encoder"] == str(tiny_encoder)
    assert report["epochs_done"] == 2 and len(report["log"]) == 2
    assert report["stopped"] == "epochs" and report["steps_done"] == 4
    assert {"train_seconds", "seconds_per_doc", "dev_labeled_f1"} <= set(report["log"][0])
    # Interrupted inside the first epoch, then finished: the selected weights are
    # byte-identical to the uninterrupted run's.
    sliced = tmp_path / "sliced"
    first = train_tne(docs, docs[:1], sliced, epochs=2, warmup_steps=2, max_steps=1,
                      checkpoint_every=0, progress=False)
    assert first["stopped"] == "max_steps" and not (sliced / "model.pt").exists()
    done = train_tne(docs, docs[:1], sliced, epochs=2, warmup_steps=2, resume=True,
                     progress=False)
    assert done["log"][-1]["dev_labeled_f1"] == report["log"][-1]["dev_labeled_f1"]
    assert (sliced / "model.pt").read_bytes() == (whole / "model.pt").read_bytes()
    with pytest.raises(RefbenchError, match="--resume given, but there is no checkpoint"):
        train_tne(docs, [], tmp_path / "fresh", epochs=1, resume=True, progress=False)
    with pytest.raises(RefbenchError, match="already holds a training checkpoint"):
        train_tne(docs, [], whole, epochs=1, progress=False)

    model = TneModel(whole)
    # The dev sweep counts labeled F1 exactly as evaluate_tne does, for every rule.
    from refbench.tasks.tne.metrics import evaluate_tne
    from refbench.tasks.tne.models.train import dev_f1_by_threshold
    from refbench.tasks.tne.predictions import TnePrediction

    sweep = dev_f1_by_threshold(model, docs)
    for rule, threshold in (("argmax", None), ("0.30", 0.3), ("0.60", 0.6)):
        model.cfg["link_threshold"] = threshold
        preds = {d.id: TnePrediction(d.id, rel) for d, (rel, _) in
                 zip(docs, model.predict(docs), strict=True)}
        assert sweep["f1"][rule] == pytest.approx(evaluate_tne(docs, preds)["labeled_f1"])
    model = TneModel(whole)
    t = model.targets(docs[0])
    # np3 -> np5 has two gold prepositions (by, near): each gets half of the target
    assert float(t[3, 5, 0]) == 0.0
    assert float(t[3, 5, PREP_ID["near"]]) == float(t[3, 5, PREP_ID["by"]]) == 0.5
    rel, scores = model.predict(docs[:1])[0]
    assert all(p != "no-relation" for p in rel.values())
    assert len(scores) == 6 * 5
    assert model.token_vectors(["word"] * 700).shape[0] == 700  # sliding windows
    decoupled = TneModel(None, head="decoupled", encoder=str(tiny_encoder))
    logits = decoupled.pair_logits(docs[0])
    assert logits.shape == (6, 6, len(PREP_ID)) and float(decoupled.loss(
        logits, decoupled.targets(docs[0])).detach()) > 0
    from refbench.tasks.tne.models.chunker import nlp
    from refbench.tasks.tne.models.enrich import enrich_text

    nps, relations = enrich_text("The roof of the house in the town fell.", model, nlp())
    assert [n["text"] for n in nps] == ["The roof", "the house", "the town"]
    assert all(r["preposition"] != "no-relation" for r in relations)
    # tne predict writes an ordinary run folder, recorded in the store (issue 38): its figures
    # are evaluate's of the same predictions, its system the model's weights
    from refbench.cli import app
    from refbench.core.commands import run_guarded
    from refbench.core.result import Result

    data = write_docs(tmp_path, [DOC, second_doc()], "two.jsonl")
    for out in ("run-a", "run-b"):
        assert run_guarded(app, ["tne", "predict", "--model", str(whole), "--data", str(data),
                                 "--out", str(tmp_path / out), "--scores", "--store",
                                 str(tmp_path / "st.sqlite"), "--leaderboard"]) == 0
    board = json.loads((tmp_path / "run-a" / "leaderboard.jsonl").read_text().splitlines()[0])
    assert "best_prepositions" in board  # the export keeps what UPrep-Acc needs
    a, b = Result.read(tmp_path / "run-a"), Result.read(tmp_path / "run-b")
    assert a.task == "tne" and a.system.key == b.system.key and a.coverage.n == 2
    assert a.system.model.startswith("tne-model:") and a.system.fingerprint
    scored = evaluate_tne([document_from_json(DOC), document_from_json(second_doc())],
                          {d.id: TnePrediction(d.id, rel) for d, (rel, _) in
                           zip(docs, model.predict(docs), strict=True)})
    assert a.value("labeled_f1") == pytest.approx(scored["labeled_f1"])


def test_missing_or_broken_model_folders_are_errors(tmp_path: Path) -> None:
    data = write_docs(tmp_path, [DOC])
    empty = tmp_path / "empty"
    empty.mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text(json.dumps({"head": "coupled"}))
    (broken / "model.pt").write_bytes(b"not a torch file")
    for folder, what in ((tmp_path / "nope", "no such TNE model folder"),
                         (empty, "no config.json"), (broken, "not a readable torch file")):
        for args in (("predict", "--model", str(folder), "--data", str(data), "--out",
                      str(tmp_path / "p.jsonl")),
                     ("enrich", "--model", str(folder), "The roof fell.")
                     )[:1 if folder == empty else 2]:
            r = run_cli("tne", *args)
            assert r.returncode == 2, (args, r.stderr)
            assert what in r.stderr and str(folder) in r.stderr and "Traceback" not in r.stderr
            assert r.stdout == ""
    assert not (tmp_path / "p.jsonl").exists()
    r = run_cli("tne", "train", "--data", str(data), "--dev", str(data), "--out",
                str(tmp_path / "x"), "--resume")
    assert r.returncode == 2 and "no checkpoint to resume from" in r.stderr


def test_crafted_checkpoint_runs_nothing(tmp_path: Path) -> None:
    """A pickle that would create a file when unpickled: the safe load refuses it, and the
    file is never created."""
    import torch

    from refbench.core.checkpoint import load_safe

    marker = tmp_path / "pwned"

    class Exploit:
        def __reduce__(self):  # type: ignore[no-untyped-def]
            return (open, (str(marker), "w"))

    bad = tmp_path / "checkpoint.pt"
    torch.save({"model": Exploit()}, bad)  # a real torch file whose pickle calls open()
    with pytest.raises(RefbenchError) as info:
        load_safe(bad)
    assert "safe load refuses" in info.value.message and info.value.path == str(bad)
    assert not marker.exists()
    with pytest.raises(RefbenchError, match="not found"):
        load_safe(tmp_path / "missing.pt")
