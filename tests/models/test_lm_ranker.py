"""The causal-LM ranker (``refbench train --model llm-loglik``) on a tiny random Llama: its loss
is the cross-entropy of the softmax over exactly the scores ``llm-loglik`` gives, training lowers
it, a resumed run ends with the same bytes as an uninterrupted one, and the saved folder runs as
``llm-loglik:DIR``. Seconds each; no hub, no real weights."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from refbench.core.types import Candidate, ChoiceInstance
from refbench.models.base import build_model
from refbench.models.lm_ranker import (
    RankerSettings,
    encode_instance,
    load_ranker,
    ranking_loss,
    train_lm_ranker,
)
from tests.models.conftest import DATA

NAMES = ["Ada", "Bob", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana"]


def toy(n: int, *, offset: int = 0) -> list[ChoiceInstance]:
    """Blank-filling instances where the gold is always the name that ends in a vowel, at
    either index: a rule a ranker can learn, and no position to exploit."""
    out = []
    for i in range(n):
        a, b = NAMES[(i + offset) % 4 * 2], NAMES[(i + offset) % 4 * 2 + 1]  # vowel, consonant
        cands = (a, b) if i % 2 == 0 else (b, a)
        context = f"{cands[0]} met {cands[1]} and then _ went home early ."
        spans = ((0, len(cands[0])), (len(cands[0]) + 5, len(cands[0]) + 5 + len(cands[1])))
        out.append(ChoiceInstance(
            id=f"toy:{offset + i}", task="winograd", context=context, expression="_",
            candidates=tuple(Candidate(c, char_spans=(s,)) for c, s in zip(cands, spans,
                                                                            strict=True)),
            gold=cands.index(a), expression_offset=context.index("_")))
    return out


def cross_entropy(scores: tuple[float, ...], gold: int) -> float:
    top = max(scores)
    return top + math.log(sum(math.exp(s - top) for s in scores)) - scores[gold]


@pytest.mark.parametrize("scoring", ["partial", "whole"])
def test_loss_is_cross_entropy_over_llm_loglik_scores(tiny_lm: Path, scoring: str) -> None:
    from refbench.tasks.choices import read_choices

    data = [*read_choices(DATA["knowref-json"]), *list(read_choices(DATA["kitmus-native"]))[:3],
            *toy(2)]
    assert {len(x.candidates) for x in data} == {2, 3}  # KITMUS brings three candidates
    ranker = load_ranker(str(tiny_lm), RankerSettings(train_layers=0, scoring=scoring,
                                                      forward_batch=4), device="cpu")
    loss = float(ranking_loss(ranker, [encode_instance(ranker, x) for x in data],
                              [int(x.gold or 0) for x in data]).detach())
    reference = build_model(f"llm-loglik:{tiny_lm}", {"device": "cpu", "scoring": scoring})
    outputs = reference.predict(data)
    want = sum(cross_entropy(o.scores, int(x.gold or 0)) for x, o in zip(data, outputs,
                                                                          strict=True))
    assert loss == pytest.approx(want / len(data), abs=1e-5)
    assert loss > 0.1  # a random model is unsure: the comparison is not of two zeros


def test_a_few_steps_lower_the_training_loss(tiny_lm: Path, tmp_path: Path) -> None:
    import torch

    train = toy(16)
    settings = RankerSettings(epochs=4, lr=3e-3, batch_size=4, train_layers=1,
                              checkpoint_every=100)
    before = load_ranker(str(tiny_lm), settings, device="cpu")
    encoded = [encode_instance(before, x) for x in train]
    golds = [int(x.gold or 0) for x in train]
    with torch.no_grad():
        start = float(ranking_loss(before, encoded, golds))
    report = train_lm_ranker(train, [], tmp_path / "m", base=str(tiny_lm), settings=settings,
                             device="cpu", progress=False)
    assert (report["steps"], report["epochs_done"], report["stopped"]) == (16, 4, "done")
    after = load_ranker(str(tmp_path / "m" / "model"), settings, device="cpu")
    with torch.no_grad():
        end = float(ranking_loss(after, encoded, golds))
    assert end < start - 0.05, (start, end)
    # only the top layer and the final norm moved; the embeddings and layer 0 did not
    old, new = before.model.state_dict(), after.model.state_dict()
    assert torch.equal(old["model.embed_tokens.weight"], new["model.embed_tokens.weight"])
    assert torch.equal(old["model.layers.0.mlp.up_proj.weight"],
                       new["model.layers.0.mlp.up_proj.weight"])
    assert not torch.equal(old["model.layers.1.mlp.up_proj.weight"],
                           new["model.layers.1.mlp.up_proj.weight"])


def test_resume_gives_the_same_bytes_as_an_uninterrupted_run(tiny_lm: Path,
                                                             tmp_path: Path) -> None:
    import torch

    from refbench.core.checkpoint import load_safe

    train, dev = toy(12), toy(4, offset=1)
    settings = RankerSettings(epochs=2, lr=3e-3, batch_size=4, train_layers=0, eval_every=2,
                              checkpoint_every=2, patience=10)
    whole = train_lm_ranker(train, dev, tmp_path / "a", base=str(tiny_lm), settings=settings,
                            device="cpu", progress=False)
    part = train_lm_ranker(train, dev, tmp_path / "b", base=str(tiny_lm), settings=settings,
                           device="cpu", progress=False, stop_after=4)  # mid-epoch 2
    assert part["steps"] == 4 and part["stopped"] is None
    with pytest.raises(Exception, match="already holds a training checkpoint"):
        train_lm_ranker(train, dev, tmp_path / "b", base=str(tiny_lm), settings=settings,
                        device="cpu", progress=False)
    resumed = train_lm_ranker(train, dev, tmp_path / "b", base=str(tiny_lm), settings=settings,
                              device="cpu", progress=False, resume=True)
    assert whole["steps"] == resumed["steps"] == 6 and resumed["epochs_done"] == 2
    drop = [{k: v for k, v in e.items() if k != "seconds"} for e in whole["log"]]
    assert drop == [{k: v for k, v in e.items() if k != "seconds"} for e in resumed["log"]]
    a = load_safe(tmp_path / "a" / "checkpoint" / "state.pt")["trainable"]
    b = load_safe(tmp_path / "b" / "checkpoint" / "state.pt")["trainable"]
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    for name in ("model.safetensors", "config.json", "refbench.json"):
        assert (tmp_path / "a" / "model" / name).read_bytes() == \
            (tmp_path / "b" / "model" / name).read_bytes(), name
    with pytest.raises(Exception, match="other settings or data"):
        train_lm_ranker(train, dev, tmp_path / "b", base=str(tiny_lm), device="cpu",
                        settings=RankerSettings(epochs=3, lr=3e-3, batch_size=4,
                                                train_layers=0, eval_every=2,
                                                checkpoint_every=2, patience=10),
                        progress=False, resume=True)


def test_the_trained_folder_runs_as_llm_loglik(tiny_lm: Path, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "toy.jsonl"
    data.write_text("".join(json.dumps(
        {"qID": x.id, "sentence": x.context, "option1": x.candidates[0].text,
         "option2": x.candidates[1].text, "answer": str(int(x.gold or 0) + 1)}) + "\n"
        for x in toy(8)))
    out = tmp_path / "ranker"
    r = cli("train", "--model", f"llm-loglik:{tiny_lm}", "--data", str(data), "--dev", str(data),
            "--out", str(out), "--max-steps", "2", "--lr", "1e-3", "--train-layers", "1",
            "--threads", "1", "--device", "cpu", "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["run_with"] == f"llm-loglik:{out / 'model'}"
    info = json.loads((out / "model" / "refbench.json").read_text())
    assert info["step"] == report["best_step"] and len(info["weights_sha256"]) == 64
    r = cli("run", "--model", report["run_with"], "--data", str(data), "--out",
            str(tmp_path / "run"), "--no-store", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["accuracy"] == pytest.approx(report["best_dev_accuracy"])


@pytest.mark.parametrize(("args", "message"), [
    (["--model", "llm-loglik", "--head", "binary"],
     "--head: trainer llm-loglik has no option 'head'; its options: batch_size"),
    (["--model", "cross-encoder", "--train-layers", "2"],
     "--train-layers: trainer cross-encoder has no option 'train_layers'"),
    (["--model", "cross-encoder", "--train-arg", "scoring=whole"],
     "trainer cross-encoder has no option 'scoring'"),
    (["--model", "llm-loglik", "--augment"],
     "--augment is available for tasks with augmented training data (antecedent "
     "switching); winograd has none"),
    (["--model", "embedding"], "unknown trainer 'embedding'"),
])
def test_options_of_the_other_trainer_are_refused(tmp_path: Path, cli, args: list[str],  # type: ignore[no-untyped-def]
                                                  message: str) -> None:
    r = cli("train", "--data", str(DATA["winograd"]), "--out", str(tmp_path / "m"), *args)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr


def test_the_trained_folder_scores_the_same_through_a_completions_server(
        tiny_lm: Path, tmp_path: Path) -> None:
    """Served by any OpenAI-compatible server that echoes prompt log-probabilities (here a
    local one running the saved folder with transformers, as vLLM would), the trained model
    gives the in-process scores, its own tokenizer folder splitting the prompts."""
    import torch
    from transformers import AutoModelForCausalLM

    from tests.models.conftest import json_server

    train_lm_ranker(toy(8), [], tmp_path / "m", base=str(tiny_lm), device="cpu",
                    settings=RankerSettings(max_steps=2, lr=1e-3, batch_size=4), progress=False)
    folder = tmp_path / "m" / "model"
    net = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True).eval()

    def answer(path: str, body: dict[str, object]) -> tuple[int, object]:
        prompt = body["prompt"]
        assert path == "/v1/completions" and isinstance(prompt, list)
        with torch.no_grad():
            lp = torch.log_softmax(net(torch.tensor([prompt])).logits[0].float(), dim=-1)
        values = [None] + [float(lp[t - 1, prompt[t]]) for t in range(1, len(prompt))]
        return 200, {"choices": [{"index": 0, "text": "", "logprobs": {
            "tokens": [*map(str, prompt), "x"], "token_logprobs": [*values, -1.0],
            "text_offset": list(range(len(prompt) + 1))}}]}

    server = json_server(answer)
    try:
        remote = build_model("llm-loglik", {
            "base_url": f"http://127.0.0.1:{server.server_address[1]}/v1",
            "tokenizer": str(folder), "check_alignment": "false",
            "cache": str(tmp_path / "cache.sqlite")})
        data = toy(4, offset=2)
        got = remote.predict(data)
    finally:
        server.shutdown()
        server.server_close()
    want = build_model(f"llm-loglik:{folder}", {"device": "cpu"}).predict(data)
    for g, w in zip(got, want, strict=True):
        assert g.scores == pytest.approx(w.scores, abs=1e-4)
        assert g.answer == w.answer


def test_augment_trains_on_the_switched_copies_too(tiny_lm: Path, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("train", "--model", f"llm-loglik:{tiny_lm}", "--data", str(DATA["knowref-tsv"]),
            "--dev", str(DATA["knowref-json"]), "--augment", "--max-steps", "1",
            "--device", "cpu", "--out", str(tmp_path / "m"), "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert (report["n_train"], report["n_dev"], report["steps"]) == (4, 3, 1)
    rows = (tmp_path / "m" / "train.augmented.tsv").read_text().splitlines()
    assert len(rows) == 1 + 4 * 2  # header, then each instance and its switched copy (2 rows)
    # the switched copy: the names swapped, the label of each row flipped
    assert rows[3].split("\t")[1:4] == ["Beatrix is sketching Ingrid , but every long sitting "
                                        "tires Ingrid", ".", "1"]


def test_only_knowref_offers_augmented_training_data() -> None:
    from refbench.tasks.lookup import tasks_with

    assert [t.name for t in tasks_with("training")] == ["knowref"]
