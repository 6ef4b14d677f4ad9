"""Every registered model on tiny fixtures of every task, through the real runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refbench.core.errors import RefbenchError, UsageError
from refbench.core.registry import MODELS
from refbench.core.types import Candidate, ChoiceInstance
from refbench.models.base import build_model
from refbench.runs.record import RunSettings
from refbench.runs.runner import run_model
from refbench.runs.store import Store
from refbench.tasks.choices import read_choices
from tests.conftest import run_cli
from tests.models.conftest import DATA

NEEDS_KITMUS = {"coref-output"}
#: Models that run only from a folder ``refbench train`` wrote (tested with a trained folder in
#: their own test module): without one they are one clear error, never a traceback.
NEEDS_TRAINED = {"encoder-head"}


def model_spec(name: str, tiny_lm: Path, tmp_path: Path) -> tuple[str, dict[str, str]]:
    if name == "llm-loglik":
        return f"llm-loglik:{tiny_lm}", {}
    if name == "coref-output":
        return f"coref-output:{DATA['kitmus-conll']}", {}
    if name == "llm-chat":
        return "llm-chat:scripted", {"cache": str(tmp_path / "chat.sqlite")}
    return name, {}


@pytest.mark.parametrize("name", MODELS.names())
@pytest.mark.parametrize("dataset", sorted(DATA))
def test_every_model_on_every_task(name: str, dataset: str, tiny_lm: Path, tmp_path: Path,
                                   chat_server) -> None:  # type: ignore[no-untyped-def]
    spec, options = model_spec(name, tiny_lm, tmp_path)
    if name == "llm-chat":
        options["base_url"] = chat_server[0]
    data = DATA[dataset]
    if name in NEEDS_TRAINED:
        with pytest.raises(RefbenchError, match="needs a trained folder"):
            run_model(RunSettings(spec, model_options=options), data, tmp_path / "out",
                      progress=False)
        return
    if name in NEEDS_KITMUS and not dataset.startswith("kitmus"):
        with pytest.raises(UsageError):
            run_model(RunSettings(spec, model_options=options), data, tmp_path / "out",
                      progress=False)
        return
    if name == "coref-output" and dataset == "kitmus-native":
        spec = f"coref-output:{data}"
    metrics = run_model(RunSettings(spec, model_options=options), data, tmp_path / "out",
                        progress=False, store=Store(tmp_path / "store.sqlite"))
    instances = list(read_choices(data))
    preds = [json.loads(line) for line in (tmp_path / "out" / "predictions.jsonl")
             .read_text().splitlines()]
    assert [p["id"] for p in preds] == [i.id for i in instances]
    for p, inst in zip(preds, instances, strict=True):
        assert len(p["scores"]) == len(inst.candidates)
        assert p["answer"] is None or 0 <= p["answer"] < len(inst.candidates)
    assert metrics["n"] == len(instances)
    assert metrics["accuracy"] is None or 0.0 <= metrics["accuracy"] <= 1.0
    saved = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert saved["provenance"]["model_config"]["name"] == name
    if dataset.startswith("kitmus"):
        assert "pronoun_accuracy" in metrics
    if name == "coref-output":  # the gold itself as system output resolves everything
        assert metrics["accuracy"] == 1.0


def test_knowledge_match_uses_background_and_explains(tmp_path: Path) -> None:
    model = build_model("knowledge-match")
    instances = list(read_choices(DATA["kitmus-native"]))
    outs = model.predict(instances)
    assert [o.answer for o in outs] == [i.gold for i in instances]
    for o in outs:
        assert o.extra["strategy"] == "background-overlap"
        assert any(step.startswith("background:") for step in o.explanation)
        assert any(step.startswith("entity knowledge:") for step in o.explanation)


def test_knowledge_match_does_not_read_metadata() -> None:
    from dataclasses import replace

    model = build_model("knowledge-match")
    inst = next(iter(read_choices(DATA["kitmus-native"])))
    blind = replace(inst, gold=None, metadata={})
    assert model.predict([blind])[0].answer == model.predict([inst])[0].answer


def test_heuristics_on_hand_made_instance() -> None:
    from refbench.core.types import Candidate, ChoiceInstance

    ctx = "Ann met Bo and Cy. Later Cy left, and she smiled."
    inst = ChoiceInstance("x", "test", ctx, "she", (
        Candidate("Ann", char_spans=((0, 3),)), Candidate("Bo", char_spans=((8, 10),)),
        Candidate("Cy", char_spans=((15, 17), (25, 27)))), gold=0,
        expression_offset=ctx.index("she"))
    assert build_model("first").predict([inst])[0].answer == 0
    assert build_model("last").predict([inst])[0].answer == 2
    assert build_model("nearest").predict([inst])[0].answer == 2
    r1 = build_model("random", {"seed": 3}).predict([inst])[0]
    assert r1 == build_model("random", {"seed": 3}).predict([inst])[0]


def test_store_resumes_an_interrupted_run(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    model = build_model("random", {"seed": 1})
    model.batch_size = 1
    real = model.predict
    calls = {"n": 0}

    def flaky(batch):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(batch)

    model.predict = flaky  # type: ignore[method-assign]
    data = DATA["winograd"]
    with pytest.raises(KeyboardInterrupt):
        run_model("random", data, tmp_path / "a", store=store, progress=False, model=model)
    model.predict = real  # type: ignore[method-assign]
    metrics = run_model("random", data, tmp_path / "a", store=store, progress=False,
                        model=model)
    assert metrics["n_cached"] == 2
    fresh = run_model("random", data, tmp_path / "b", model=build_model("random", {"seed": 1}),
                      progress=False)
    assert (tmp_path / "a" / "predictions.jsonl").read_text() == \
        (tmp_path / "b" / "predictions.jsonl").read_text()
    assert fresh["accuracy"] == metrics["accuracy"]
    runs = store.runs()
    assert len(runs) == 1 and runs[0]["model"] == "random"
    ls = run_cli("results", "ls", "--store", str(tmp_path / "s.sqlite"), "--json")
    assert json.loads(ls.stdout)[0]["run_id"] == runs[0]["run_id"]
    show = run_cli("results", "show", str(runs[0]["run_id"]), "--store",
                   str(tmp_path / "s.sqlite"), "--json")
    assert json.loads(show.stdout)["metrics"]["n"] == 3


def test_train_resume_and_run_cross_encoder(tmp_path: Path) -> None:
    from refbench.models.train import train_cross_encoder

    data = list(read_choices(DATA["kitmus-native"]))
    out = tmp_path / "ce"
    first = train_cross_encoder(data[:3], data[3:], out, epochs=1, batch_size=2,
                                max_length=64, progress=False)
    assert first["epochs_done"] == 1 and (out / "checkpoint" / "state.pt").is_file()
    again = train_cross_encoder(data[:3], data[3:], out, epochs=2, batch_size=2,
                                max_length=64, resume=True, progress=False)
    assert again["epochs_done"] == 2 and len(again["log"]) == 2
    model = build_model(f"cross-encoder:{out}")
    assert len(model.predict(data[:2])) == 2
    binary = train_cross_encoder(data[:3], [], tmp_path / "bin", head="binary", epochs=1,
                                 batch_size=3, max_length=64, progress=False)
    assert binary["head"] == "binary"
    cli = run_cli("train", "--model", "cross-encoder", "--data", str(DATA["winograd"]),
                  "--out", str(tmp_path / "ce2"), "--epochs", "1", "--max-steps", "1",
                  "--batch-size", "2", "--json")
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["epochs_done"] == 1


def test_cross_encoder_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(RefbenchError) as info:
        build_model(f"cross-encoder:{tmp_path}")
    assert "not a trained cross-encoder folder" in info.value.message


def test_loglik_scores_partial_continuations(tiny_lm: Path) -> None:
    from refbench.models.llm import scoring_requests

    inst = next(iter(read_choices(DATA["winograd"])))
    reqs = scoring_requests(inst)
    assert reqs[0][1] == reqs[1][1] == " was too wide."
    assert reqs[0][0].endswith("because the piano") and reqs[1][0].endswith("the door")
    model = build_model(f"llm-loglik:{tiny_lm}")
    (lp, n, cut), = model.loglik([("The cat", " sat.")])
    assert lp < 0 and n == 5 and cut == 0
    out = model.predict([inst])[0]
    assert out.extra["answer_norm"] in (0, 1) and len(out.scores) == 2


def test_chat_parsing_retries_cache_and_failure(tmp_path: Path, chat_server) -> None:  # type: ignore[no-untyped-def]
    from refbench.models.chat import parse_answer

    url, script = chat_server
    inst = next(iter(read_choices(DATA["winograd"])))
    assert parse_answer("Hmm. **Answer: 2** (door)", inst) == 1
    assert parse_answer("It's the piano, clearly.", inst) == 0
    assert parse_answer("I cannot tell.", inst) is None
    script.fail_first = 2
    model = build_model("llm-chat:scripted", {"base_url": url, "cache": str(tmp_path / "c.db"),
                                              "backoff": "0.01"})
    out = model.predict([inst])[0]
    assert out.answer == 1 and "option 2" in out.extra["reply"]
    n_requests = len(script.requests)
    model.predict([inst])  # served from the cache
    assert len(script.requests) == n_requests
    script.stop()  # the endpoint becomes unreachable
    dead = build_model("llm-chat:scripted", {"base_url": url, "cache": str(tmp_path / "c.db"),
                                             "retries": "1", "backoff": "0.01",
                                             "timeout": "2"})
    assert dead.predict([inst])[0].answer == 1  # cached response, no network needed
    other = list(read_choices(DATA["winograd"]))[1]
    with pytest.raises(RefbenchError) as info:
        dead.predict([other])
    assert "failed after 2 attempts" in info.value.message


def test_run_cli_unknown_model_and_json(tmp_path: Path) -> None:
    bad = run_cli("run", "--model", "knowledge-mach", "--data", str(DATA["winograd"]),
                  "--out", str(tmp_path / "o"), "--no-store")
    assert bad.returncode == 2 and "Did you mean knowledge-match" in bad.stderr
    ok = run_cli("run", "--model", "first", "--data", str(DATA["gap"]), "--out",
                 str(tmp_path / "o"), "--no-store", "--json")
    assert ok.returncode == 0, ok.stderr
    data = json.loads(ok.stdout)
    assert data["accuracy"] == 0.5 and data["n_with_gold"] == 2 and "f1" in data


def test_suite_run_and_report_from_store(tmp_path: Path) -> None:
    from scripts.regen_golden import GOLDEN

    store = str(tmp_path / "s.sqlite")
    r = run_cli("run", "--model", "knowledge-match", "--data", str(GOLDEN), "--out",
                str(tmp_path / "runs"), "--store", store, "--quiet")
    assert r.returncode == 0, r.stderr
    assert "| background-inference-charfict-wordfict | 1.000 | 1.000 |" in r.stdout
    assert "| chance (random baseline) | 0.500 | 0.333 |" in r.stdout
    assert "| Variant | 2 ent. | 3 ent. |" in r.stdout
    suite = json.loads((tmp_path / "runs" / "suite-results.json").read_text())
    assert len(suite["cells"]) == 4
    rep = run_cli("report", "--from-store", "--store", store, "--format", "csv")
    assert rep.returncode == 0, rep.stderr
    lines = rep.stdout.splitlines()
    assert lines[0].startswith("task,system,kind,data,split,variant,n_entities,metric,value")
    assert lines[1].startswith("kitmus,knowledge-match,system,,test,background-pretrain,2,"
                               "pronoun_accuracy,1.0")
    assert lines[-1].startswith("kitmus,chance (random baseline),baseline,")


def _described(expression: str, descriptions: tuple[str, str]) -> ChoiceInstance:
    return ChoiceInstance(id="q:0", task="altentities", context="Do you mean A or B?",
                          expression=expression, gold=0,
                          candidates=(Candidate("Alpha", description=descriptions[0]),
                                      Candidate("Beta", description=descriptions[1])))


def test_evidence_selection_for_described_candidates() -> None:
    from refbench.models.cross_encoder import SELECTOR, described, pair_texts

    filler = " ".join(f"Filler sentence number {i} about the weather report." for i in range(40))
    inst = _described("the one with the piano solo",
                      (f"{filler} The song features a long piano solo. {filler}",
                       f"{filler} The track is built on a drum loop. {filler}"))
    assert described(inst)
    (ev0, q0), (ev1, _) = pair_texts(inst, 12)
    assert q0 == "the one with the piano solo"
    assert ev0.startswith("Alpha. ") and "piano solo" in ev0
    assert ev1.startswith("Beta. ")
    # the budget bounds the evidence (the best sentence is always kept, cut to the budget)
    assert len(ev0.split()) <= 12 + 1 and len(ev1.split()) <= 12 + 1
    # the closest sentences, in document order, after the name
    two = _described("the one recorded in Indonesia",
                     ("Indonesia is where the singer was born. " + filler
                      + " The song was recorded in Indonesia.", "Rain."))
    assert SELECTOR.get(two, 0, 14)[0] == ("Alpha. Indonesia is where the singer was born. "
                                           "The song was recorded in Indonesia.")
    # the untrained network is the zero-shot best-sentence scorer: it picks the piano song
    model = build_model("cross-encoder", {"evidence_words": 12})
    out = model.predict([inst])[0]
    assert out.answer == 0
    # pronoun tasks keep the whole evidence (no selection)
    pronoun = next(iter(read_choices(DATA["kitmus-native"])))
    assert not described(pronoun)


def test_train_holds_out_whole_questions(tmp_path: Path) -> None:
    from refbench.models.train import held_out_split

    data = list(read_choices(DATA["altentities"]))
    train, dev = held_out_split(data, seed=13)
    group = {str(x.metadata["question_id"]) for x in dev}
    assert dev and train and not group & {str(x.metadata["question_id"]) for x in train}
    assert len(train) + len(dev) == len(data)
    # questions that share an entity stay on one side
    shared = Candidate("Shared", description="Shared entity.")
    questions = [ChoiceInstance(id=f"q{i}", task="altentities", context="?", expression="x",
                                candidates=(shared if i < 3 else Candidate(f"E{i}",
                                                                           description="d"),
                                            Candidate(f"F{i}", description="d")), gold=0,
                                metadata={"question_id": f"q{i}"}) for i in range(10)]
    for seed in range(5):
        tr, dv = held_out_split(questions, seed=seed)
        seen = {c.text for x in tr for c in x.candidates}
        assert not any(c.text in seen for x in dv for c in x.candidates)
        assert {x.id for x in dv} in ({"q0", "q1", "q2"}, *({f"q{i}"} for i in range(3, 10)))


def test_train_scores_dev_before_and_during_training(tmp_path: Path) -> None:
    from refbench.models.train import train_cross_encoder

    data = list(read_choices(DATA["altentities"]))
    report = train_cross_encoder(data[:4], data[4:], tmp_path / "ce", epochs=1, batch_size=2,
                                 max_length=64, eval_every=1, patience=1, freeze_layers=5,
                                 progress=False)
    steps = [e["step"] for e in report["log"]]
    assert steps[0] == 0 and steps == sorted(set(steps))
    assert report["freeze_layers"] == 5 and (tmp_path / "ce" / "model.pt").is_file()


def test_trained_model_records_how_its_data_was_read(tmp_path: Path) -> None:
    from refbench.models.base import trained_reader_options

    out = tmp_path / "ce-alt"
    cli = run_cli("train", "--model", "cross-encoder", "--data", str(DATA["altentities"]),
                  "--out", str(out), "--epochs", "1", "--max-steps", "1", "--batch-size", "2",
                  "--max-words", "40", "--evidence-words", "20", "--eval-every", "1",
                  "--freeze-layers", "3", "--json")
    assert cli.returncode == 0, cli.stderr
    report = json.loads(cli.stdout)
    assert report["reader"] == {"max_words": 40} and report["evidence_words"] == 20
    assert report["freeze_layers"] == 3 and report["log"][0]["step"] == 0
    assert trained_reader_options(f"cross-encoder:{out}") == {"max_words": 40}
    assert trained_reader_options("embedding") == {}


def test_loglik_cuts_long_inputs_as_lm_eval_does(tiny_lm: Path, tmp_path: Path) -> None:
    """max_length defaults to the model's context as lm-eval resolves it (here the config's
    max_position_embeddings, 256), a longer sequence keeps its last max_length + 1 tokens as
    lm-eval's hf model keeps them (same scores), and a run counts the instances cut."""
    hf = pytest.importorskip("lm_eval.models.huggingface")
    from lm_eval.api.instance import Instance

    model = build_model(f"llm-loglik:{tiny_lm}")
    assert model.max_length == 256 and model.config()["max_length"] == 256  # type: ignore[attr-defined]
    requests = [("the cat sat on the mat and " * 60, " it slept."), ("The cat", " sat.")]
    ours = model.loglik(requests)  # type: ignore[attr-defined]
    assert ours[0].cut > 0 and ours[1].cut == 0
    # its (BERT) tokenizer has no BOS or EOS for lm-eval to use, and would add [CLS]...[SEP]
    theirs = hf.HFLM(pretrained=str(tiny_lm), device="cpu", batch_size=1, dtype="float32",
                     prefix_token_id=102, add_bos_token=False).loglikelihood(
        [Instance("loglikelihood", {}, r, i) for i, r in enumerate(requests)],
        disable_tqdm=True)
    assert [x.logprob for x in ours] == pytest.approx([lp for lp, _ in theirs], abs=1e-4)
    # a run on short sentences with max_length=4 cuts every instance, and says so
    r = run_cli("run", "--model", f"llm-loglik:{tiny_lm}", "--model-arg", "max_length=4",
                "--data", str(DATA["winograd"]), "--out", str(tmp_path / "run"))
    assert r.returncode == 0, r.stderr
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["n_truncated"] == metrics["n"] and metrics["max_truncated_tokens"] > 0
    assert f"the inputs of {metrics['n']} of {metrics['n']} instances were longer" in r.stdout
    first = json.loads((tmp_path / "run" / "predictions.jsonl").read_text().splitlines()[0])
    assert first["extra"]["truncated_tokens"] > 0
    default = run_cli("run", "--model", f"llm-loglik:{tiny_lm}", "--data",
                      str(DATA["winograd"]), "--out", str(tmp_path / "whole"))
    assert "n_truncated" not in json.loads((tmp_path / "whole" / "metrics.json").read_text())
    assert "longer than" not in default.stdout
