"""Language models of the user's session (issue 51): ``refbench.models.from_transformers``
over SmolLM2 gives ``llm-loglik``'s answers on all of WSC273 (its recorded in-process
predictions, which tests/models/test_vllm.py checks are current), and
``refbench.models.loglik`` over a function builds the same requests and normalisations."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from refbench.core.errors import RefbenchError
from refbench.core.types import ChoiceInstance
from refbench.models.llm import scoring_requests
from refbench.models.notebook_lm import from_transformers, loglik
from refbench.models.user import user_model
from refbench.tasks.choices import read_choices
from tests.conftest import ROOT, SHARED, needs_shared
from tests.models.conftest import DATA

WSC273 = SHARED / "data" / "winograd" / "wsc273.jsonl"
RECORDED = ROOT / "benchmarks" / "results" / "llm-loglik-smollm2" / "test.predictions.jsonl.gz"


def recorded() -> dict[str, dict[str, Any]]:
    with gzip.open(RECORDED, "rt", encoding="utf-8") as fh:
        return {r["id"]: r for r in map(json.loads, fh)}


@needs_shared(WSC273)
def test_transformers_and_function_adapters_give_llm_loglik_answers_on_wsc273() -> None:
    import refbench
    from refbench.models.llm_weights import load

    tokenizer, lm, _ = load(None)  # the weights llm-loglik scores by default
    adapter = from_transformers(lm, tokenizer, name="smollm2-tf")
    table: dict[tuple[str, str], float] = {}
    scored = adapter.loglik

    def keep(requests: Any) -> Any:
        got = scored(requests)
        table.update({r: s.logprob for r, s in zip(requests, got, strict=True)})
        return got

    adapter.loglik = keep  # type: ignore[method-assign]
    want = recorded()
    result = refbench.run(adapter, WSC273, store=None, progress=False)
    assert isinstance(result, refbench.Result) and len(result.rows) == 273
    same = sum(row["answer"] == want[row["id"]]["answer"] for row in result.rows)
    diff = max(abs(a - b) for row in result.rows
               for a, b in zip(row["scores"], want[row["id"]]["scores"], strict=True))
    assert (same, len(result.rows)) == (273, 273) and diff < 1e-4, (same, diff)
    assert result.figures["accuracy"] == sum(want[r["id"]]["answer"] == r["gold"]
                                             for r in result.rows) / 273
    # a log-likelihood function of the same scores: the same requests (a missing one is a
    # KeyError), the same answers and acc_norm
    calls: list[int] = []

    def from_table(requests: list[tuple[str, str]]) -> list[float]:
        calls.append(len(requests))
        return [table[r] for r in requests]

    fn = refbench.run(loglik(from_table, name="table"), WSC273, store=None, progress=False)
    assert isinstance(fn, refbench.Result)
    assert [r["answer"] for r in fn.rows] == [r["answer"] for r in result.rows]
    assert fn.figures.as_dict() == result.figures.as_dict()
    assert sum(calls) == 2 * 273


def test_a_loglik_function_builds_llm_loglik_requests_and_says_what_it_got_wrong() -> None:
    instances = list(read_choices(DATA["winograd"]))
    seen: list[tuple[str, str]] = []

    def by_length(requests: list[tuple[str, str]]) -> list[float]:
        seen.extend(requests)
        return [-float(len(c)) for _, c in requests]

    model = loglik(by_length, name="by-length", version="1")
    outputs = model.predict(instances)
    assert seen == [r for inst in instances for r in scoring_requests(inst)]
    for inst, out in zip(instances, outputs, strict=True):
        lengths = [len(c) for _, c in scoring_requests(inst)]
        assert out.scores == tuple(-float(n) for n in lengths)
        assert out.extra["scores_norm"] == [-1.0] * len(lengths)
    wrapped = user_model(model)
    assert wrapped.cacheable and wrapped.name == "by-length"
    assert wrapped.fingerprint() == user_model(loglik(by_length, name="by-length",
                                                      version="1")).fingerprint()
    with pytest.raises(RefbenchError, match="returned 1 values for 2 requests"):
        loglik(lambda reqs: [0.0]).predict(instances[:1])
    with pytest.raises(RefbenchError, match="expected a number"):
        loglik(lambda reqs: ["x" for _ in reqs]).predict(instances[:1])


def test_from_transformers_on_a_tiny_model_scores_as_llm_loglik_from_its_folder(
        tiny_lm: Any) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from refbench.models.base import build_model

    instances: list[ChoiceInstance] = list(read_choices(DATA["winograd"]))
    lm = AutoModelForCausalLM.from_pretrained(tiny_lm, local_files_only=True)
    tok = AutoTokenizer.from_pretrained(tiny_lm, local_files_only=True)
    ours = from_transformers(lm, tok, batch_size=2).predict(instances)
    theirs = build_model(f"llm-loglik:{tiny_lm}", {"batch_size": "2"}).predict(instances)
    assert [o.answer for o in ours] == [o.answer for o in theirs]
    assert all(abs(a - b) < 1e-5 for o, t in zip(ours, theirs, strict=True)
               for a, b in zip(o.scores, t.scores, strict=True))
    assert [o.extra["answer_norm"] for o in ours] == [t.extra["answer_norm"] for t in theirs]
